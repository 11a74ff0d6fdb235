/**
 * The research engine: a typed request and an AbortSignal in, events out
 * (`context`, then `response` deltas or one structured `response`; a failure
 * is thrown). Pure of HTTP: the JSON, WebSocket and SSE faces adapt it,
 * through the run wrapper (run/hold.ts) that every caller uses.
 *
 *   plan -> fan out -> read -> rank -> answer -> shape
 *
 * The generator's return value is the run's info (usage, timings, providers).
 */
import type { ContentsContext } from "../contents/service.ts";
import { invalid, ServiceError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { countTokens } from "../tokens.ts";
import { composeAnswer } from "./answer/extractive/index.ts";
import { fillOutputFormat } from "./answer/typed/index.ts";
import type { CircuitBreaker } from "./breaker.ts";
import { citationFilter } from "./citations.ts";
import { gatherEvidence } from "./evidence.ts";
import { EarlyReads } from "./early-reads.ts";
import { fanOut, type FanoutSettings, type ProviderReport } from "./fanout.ts";
import { sniffImage } from "./image.ts";
import { addUsage, NO_USAGE, type ImageBytes, type LlmPort } from "./llm/port.ts";
import { modelFailure, modelFailureNote, modelFailureWords } from "./llm/failure.ts";
import { conforms, shapeWords, type JsonSchema } from "./output-format.ts";
import type { PassageCache } from "./passage-cache.ts";
import { planQueries } from "./plan.ts";
import type { RankOptions } from "./rank.ts";
import { readHits, type ReadSettings } from "./read.ts";
import type { ResearchRequest } from "./request.ts";
import { truncateLists } from "./run/max-results.ts";
import type { SearchSource } from "./sources/source.ts";
import { tokenReport, type EvidenceSource, type ResearchEvent, type TokenReport, type TokenUsage } from "./types.ts";

export interface EngineSettings {
  fanout: FanoutSettings;
  read: ReadSettings;
  rank: RankOptions;
  imageMaxBytes: number;
}

export interface EngineDeps {
  sources: SearchSource[];
  contents: ContentsContext;
  /** Stored pages' passages, cut once per version (shared by every run of the instance). */
  passages: PassageCache;
  llm: LlmPort | null;
  breakers: Map<string, CircuitBreaker>;
  settings: EngineSettings;
  log: Logger;
}

export interface RunInfo extends TokenReport {
  model: string;
  planner: "llm" | "keyphrases";
  queries: string[];
  timings_ms: Record<string, number>;
  providers: ProviderReport[];
  pages: { read: number; from_cache: number; failed: number; errors: string[] };
  sources_found: number;
  image_analysed: boolean;
  image_note?: string;
  notes: string[];
}

export interface PreparedRun {
  request: ResearchRequest;
  image: ImageBytes | null;
}

export const NO_SOURCES_ANSWER = "I could not find sources that answer this question, so I cannot give a grounded answer.";

/** Work that must succeed before any event: an image URL is fetched (through the SSRF guard) and checked. */
export async function prepareRun(deps: EngineDeps, request: ResearchRequest, signal: AbortSignal): Promise<PreparedRun> {
  const image = request.image;
  if (!image) return { request, image: null };
  if (image.kind === "bytes") return { request, image: { data: image.data, mediaType: image.mediaType } };
  try {
    const fetched = await deps.contents.fetcher.fetch(image.url, {
      signal,
      maxBytes: deps.settings.imageMaxBytes,
      acceptType: (t) => t === "" || t.startsWith("image/") || t === "application/octet-stream",
    });
    const mediaType = sniffImage(fetched.body);
    if (!mediaType) throw invalid(["body", "image"], "the image URL did not return a PNG, JPEG, GIF, WebP or BMP image", "image_type");
    return { request, image: { data: fetched.body, mediaType } };
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof ServiceError && error.code !== "validation_failed")
      throw invalid(["body", "image"], `the image URL could not be fetched (${error.code})`, "image_url");
    throw error;
  }
}

export async function* runResearch(deps: EngineDeps, prepared: PreparedRun, signal: AbortSignal): AsyncGenerator<ResearchEvent, RunInfo> {
  const { request } = prepared;
  const started = performance.now();
  const timings: Record<string, number> = {};
  let mark = started;
  const lap = (stage: string) => {
    const now = performance.now();
    timings[stage] = Math.round(now - mark);
    mark = now;
  };
  const notes: string[] = [];
  let usage = NO_USAGE;
  const llm = deps.llm;

  // Image: to the model when it can see; otherwise say so, never drop it silently.
  let imageAnalysed = false;
  let imageNote: string | undefined;
  let imageDescription: string | null = null;
  if (prepared.image) {
    if (llm?.vision) {
      try {
        const described = await llm.describeImage(request.prompt, prepared.image, signal);
        imageDescription = described.description;
        usage = addUsage(usage, described.usage);
        imageAnalysed = true;
      } catch (error) {
        signal.throwIfAborted();
        imageNote = `the image could not be analysed (${modelFailureNote(error, deps.log, "image")})`;
      }
    } else {
      imageNote = llm
        ? `the configured model (${llm.model}) cannot read images; the image was not analysed`
        : "no vision-capable model is configured; the image was not analysed";
    }
    lap("image");
  }

  const plan = await planQueries(llm, request.prompt, imageDescription, signal);
  usage = addUsage(usage, plan.usage);
  if (plan.error !== undefined) notes.push(`planning fell back to key phrases (${modelFailureNote(plan.error, deps.log, "plan")})`);
  lap("plan");

  const scopes = { whitelist: request.whitelist, blacklist: request.blacklist };
  const early =
    deps.settings.read.early && deps.settings.read.maxPages > 0
      ? new EarlyReads(deps.contents, deps.settings.read.maxPages, signal)
      : undefined;
  const { hits, reports } = await fanOut(
    deps.sources,
    plan.queries,
    scopes,
    deps.settings.fanout,
    deps.breakers,
    signal,
    deps.log,
    early && ((list) => early.offer(list)),
  );
  lap("search");

  const outcomes = await readHits(deps.contents, hits, deps.settings.read, signal, early);
  lap("read");

  // The fields of an output_format are asked as much as the prompt: passages that speak of them rank too.
  const fields = request.outputFormat ? shapeWords(request.outputFormat.shape) : "";
  const question = [request.prompt, ...plan.queries, imageDescription ?? "", fields].join("\n");
  const evidence = gatherEvidence(question, outcomes, llm ? deps.settings.rank : extractiveBudget(deps.settings.rank), deps.passages);
  lap("rank");
  yield { type: "context", content: evidence.context };

  let answerText = "";
  if (request.outputFormat) {
    const value = await structuredAnswer(
      deps,
      request.prompt,
      request.outputFormat.schema,
      request.outputFormat.shape,
      evidence.sources,
      signal,
      notes,
      (u) => (usage = addUsage(usage, u)),
    );
    const shaped = truncateLists(value, request.maxResults);
    answerText = JSON.stringify(shaped);
    yield { type: "response", content: shaped };
  } else if (evidence.sources.length === 0) {
    answerText = NO_SOURCES_ANSWER;
    yield { type: "response", content: NO_SOURCES_ANSWER };
  } else if (llm) {
    const filter = citationFilter(new Set(evidence.sources.map((s) => s.id)));
    const stream = llm.streamAnswer(
      { prompt: request.prompt, sources: evidence.sources, ...(prepared.image && llm.vision ? { image: prepared.image } : {}) },
      signal,
    );
    let sent = false;
    try {
      for await (const delta of stream.deltas) {
        const clean = filter.push(delta);
        if (!clean) continue;
        sent = true;
        answerText += clean;
        yield { type: "response", content: clean };
      }
      const rest = filter.flush();
      if (rest) {
        answerText += rest;
        yield { type: "response", content: rest };
      }
      usage = addUsage(usage, await stream.usage);
    } catch (error) {
      signal.throwIfAborted();
      // Half an answer cannot fall back: the run fails, in our words (the provider's are logged).
      if (sent)
        throw new ServiceError(
          "service_unavailable",
          `the language model stopped answering mid-way: ${modelFailureWords(modelFailure(error, deps.log, "answer"))}`,
        );
      notes.push(`the language model failed (${modelFailureNote(error, deps.log, "answer")}); answered extractively`);
      for (const chunk of extractiveChunks(request.prompt, plan.queries, evidence.sources)) {
        answerText += chunk;
        yield { type: "response", content: chunk };
      }
    }
  } else {
    for (const chunk of extractiveChunks(request.prompt, plan.queries, evidence.sources)) {
      answerText += chunk;
      yield { type: "response", content: chunk };
    }
  }
  lap("answer");

  if (usage.total_tokens === 0) {
    // No model reported usage: count what the engine processed and produced with a real tokenizer.
    const prompt = countTokens(question) + evidence.processedTokens;
    const completion = countTokens(answerText);
    usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }
  timings.total = Math.round(performance.now() - started);
  return {
    ...tokenReport(usage),
    model: llm ? llm.model : "extractive",
    planner: plan.planner,
    queries: plan.queries,
    timings_ms: timings,
    providers: reports,
    pages: {
      read: outcomes.filter((o) => o.page && !o.cached).length,
      from_cache: outcomes.filter((o) => o.page && o.cached).length,
      failed: outcomes.filter((o) => !o.page).length,
      errors: outcomes
        .filter((o) => o.error)
        .map((o) => `${o.hit.url}: ${o.error}`)
        .slice(0, 10),
    },
    sources_found: hits.length,
    image_analysed: imageAnalysed,
    ...(imageNote ? { image_note: imageNote } : {}),
    notes,
  };
}

/**
 * Without a model, the answer is read from the passages by this process, and
 * no context window limits how many it may weigh: three times the model's
 * share, so a fact outside the few best passages of a page is still found.
 */
function extractiveBudget(rank: RankOptions): RankOptions {
  // Bounded as the settings themselves are, whatever an operator sets.
  return { tokenBudget: Math.min(rank.tokenBudget * 3, 200_000), maxPassages: Math.min(rank.maxPassages * 3, 100) };
}

/** The extractive answer, sentence by sentence, so it streams like a model's. */
function* extractiveChunks(prompt: string, queries: string[], sources: EvidenceSource[]): Generator<string> {
  const { text } = composeAnswer({ prompt, queries, sources });
  const pieces = text.split(/(?<=\[\d+\]) +(?=\S)/);
  yield pieces[0] ?? "";
  for (const piece of pieces.slice(1)) yield ` ${piece}`;
}

async function structuredAnswer(
  deps: EngineDeps,
  prompt: string,
  schema: JsonSchema,
  shape: NonNullable<ResearchRequest["outputFormat"]>["shape"],
  sources: EvidenceSource[],
  signal: AbortSignal,
  notes: string[],
  addUsageOf: (usage: TokenUsage) => void,
): Promise<Record<string, unknown>> {
  const extractive = () => fillOutputFormat({ prompt, shape, schema, sources }).value;
  if (!deps.llm || sources.length === 0) return extractive();
  let hint: string | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const { value, usage } = await deps.llm.structuredAnswer({ prompt, schema, sources, ...(hint ? { repairHint: hint } : {}) }, signal);
      addUsageOf(usage);
      if (conforms(schema, value)) return value as Record<string, unknown>;
      hint = "it did not match the JSON schema (every field present, the right types, null when unknown, no extra fields)";
    } catch (error) {
      signal.throwIfAborted();
      const failure = modelFailure(error, deps.log, "structured answer");
      if (failure !== "model_output_invalid") {
        // Not an answer to repair (a refused key, an outage): asking again would not help.
        notes.push(`the language model failed (${failure}: ${modelFailureWords(failure)}); filled by typed extraction instead`);
        return extractive();
      }
      hint = "it could not be parsed as JSON matching the schema";
    }
  }
  notes.push("the language model's structured answer was invalid twice; filled by typed extraction instead");
  return extractive();
}
