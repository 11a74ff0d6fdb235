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
import { metrics } from "../observe/metrics.ts";
import { NO_SPAN, type TraceSpan } from "../observe/trace.ts";
import { countTokens } from "../tokens.ts";
import { composeAnswer } from "./answer/extractive/index.ts";
import { fillOutputFormat } from "./answer/typed/index.ts";
import type { CircuitBreaker } from "./breaker.ts";
import type { CallLatencies } from "./call-latencies.ts";
import { citationFilter } from "./citations.ts";
import { gatherEvidence, type Evidence } from "./evidence.ts";
import { EarlyReads } from "./early-reads.ts";
import { fanOut, type FanoutSettings, type MergedHit, type ProviderReport } from "./fanout.ts";
import { sniffImage } from "./image.ts";
import { addUsage, NO_USAGE, type ImageBytes, type LlmPort } from "./llm/port.ts";
import { modelFailure, modelFailureNote, modelFailureWords } from "./llm/failure.ts";
import { conforms, shapeWords } from "./output-format.ts";
import type { PassageCache } from "./passage-cache.ts";
import { planQueries, type Plan } from "./plan.ts";
import type { RankOptions } from "./rank.ts";
import { readHits, type ReadOutcome, type ReadSettings } from "./read.ts";
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
  /** Each provider's recent call times on this instance, which size a straggler's grace (quorum.ts). */
  latencies: Map<string, CallLatencies>;
  /** The recent page-read times on this instance, which size a slow read's grace (read-grace.ts). */
  readTimes: CallLatencies;
  settings: EngineSettings;
  log: Logger;
  /** The span a run's stages go under (its research.run span, run/hold.ts); absent: untraced. */
  span?: TraceSpan;
}

export interface RunInfo extends TokenReport {
  model: string;
  planner: "llm" | "keyphrases";
  queries: string[];
  timings_ms: Record<string, number>;
  providers: ProviderReport[];
  /** Chosen pages = read + from_cache + failed + cut. */
  pages: { read: number; from_cache: number; failed: number; cut: CutRead[]; errors: string[] };
  sources_found: number;
  image_analysed: boolean;
  image_note?: string;
  notes: string[];
}

/** A read the run went on without: its page, how long it had been out, the grace it had, and why. */
export interface CutRead {
  url: string;
  waited_ms: number;
  grace_ms: number;
  reason: "straggler";
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

/**
 * One run as its steps see it: the engine's parts, the request with its
 * image, the caller's signal, and the tally the steps add to.
 */
interface Run {
  deps: EngineDeps;
  request: ResearchRequest;
  image: ImageBytes | null;
  signal: AbortSignal;
  tally: RunTally;
}

/**
 * What a run keeps as it goes: the time each stage took (in its info, in
 * run_stage_duration_seconds, and as a span per stage under the run's), the
 * notes for the caller, and the models' usage.
 */
class RunTally {
  readonly timings: Record<string, number> = {};
  readonly notes: string[] = [];
  usage: TokenUsage = NO_USAGE;
  private readonly started = performance.now();
  private mark = this.started;
  /** The span of the stage under way, between begin() and its lap(). */
  private stage: TraceSpan | undefined;

  constructor(private readonly span: TraceSpan) {}

  /** A stage starts: its span (research.plan, research.search…), which its own calls go under. */
  begin(stage: Stage): TraceSpan {
    this.stage = this.span.child(STAGE_SPANS[stage]);
    return this.stage;
  }

  /** The time since the last stage ended is this stage's. */
  lap(stage: Stage): void {
    const now = performance.now();
    const ms = now - this.mark;
    this.timings[stage] = Math.round(ms);
    this.mark = now;
    metrics.runStageDuration.observe(STAGE_LABELS[stage], ms / 1000);
    this.stage?.end();
    this.stage = undefined;
  }

  /** The `traceparent` of the stage under way, for a call it makes to a model; undefined when untraced. */
  stageTraceparent(): string | undefined {
    return this.stage?.traceparent();
  }

  /** The run ended inside a stage (a failure, its caller gone): that stage's span ends, marked with why. */
  abandon(reason: string): void {
    this.stage?.fail(reason);
    this.stage?.end();
    this.stage = undefined;
  }

  addUsage(usage: TokenUsage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** The whole run's time, once the last stage is done. */
  end(): void {
    this.timings.total = Math.round(performance.now() - this.started);
  }
}

type Stage = "image" | "plan" | "search" | "read" | "rank" | "answer";
const STAGES: readonly Stage[] = ["image", "plan", "search", "read", "rank", "answer"];
/** Built once: a stage's span name and its metric's labels, not an object per lap. */
const STAGE_SPANS = Object.fromEntries(STAGES.map((stage) => [stage, `research.${stage}`])) as Record<Stage, string>;
const STAGE_LABELS = Object.fromEntries(STAGES.map((stage) => [stage, { stage }])) as Record<Stage, { stage: Stage }>;

interface ImageReading {
  analysed: boolean;
  /** Why it was not analysed, when there was an image. */
  note?: string;
  /** What the model saw, which the plan and the ranking read with the prompt. */
  description: string | null;
}

/** What the search found: the merged hits, each provider's report, and what reading the best of them gave. */
interface Found {
  hits: MergedHit[];
  reports: ProviderReport[];
  outcomes: ReadOutcome[];
}

/** The stages in order, each timing itself on the tally: the context goes out once ranked, then the answer's events. */
export async function* runResearch(deps: EngineDeps, prepared: PreparedRun, signal: AbortSignal): AsyncGenerator<ResearchEvent, RunInfo> {
  const run: Run = { deps, request: prepared.request, image: prepared.image, signal, tally: new RunTally(deps.span ?? NO_SPAN) };
  let done = false;
  try {
    const seen = await lookAtImage(run);
    const plan = await planSearches(run, seen.description);
    const found = await searchAndRead(run, plan.queries);
    const question = rankingQuestion(run.request, plan.queries, seen.description);
    const evidence = rankEvidence(run, question, found.outcomes);
    yield { type: "context", content: evidence.context };
    run.tally.begin("answer");
    const answerText = yield* answer(run, plan.queries, evidence.sources);
    run.tally.lap("answer");
    if (run.tally.usage.total_tokens === 0) run.tally.usage = countedUsage(question, evidence.processedTokens, answerText);
    run.tally.end();
    done = true;
    return runInfo(run, plan, found, seen);
  } catch (error) {
    run.tally.abandon(signal.aborted ? "aborted" : "failed");
    throw error;
  } finally {
    // A reader that stopped reading (return()) ends the run inside a stage too.
    if (!done) run.tally.abandon("stopped");
  }
}

/** Image: to the model when it can see; otherwise say so, never drop it silently. */
async function lookAtImage({ deps, request, image, signal, tally }: Run): Promise<ImageReading> {
  if (!image) return { analysed: false, description: null };
  const stage = tally.begin("image");
  const llm = deps.llm;
  let seen: ImageReading;
  if (llm?.vision) {
    try {
      const described = await llm.describeImage(request.prompt, image, signal, stage.traceparent());
      tally.addUsage(described.usage);
      seen = { analysed: true, description: described.description };
    } catch (error) {
      signal.throwIfAborted();
      seen = {
        analysed: false,
        description: null,
        note: `the image could not be analysed (${modelFailureNote(error, deps.log, "image")})`,
      };
    }
  } else {
    const note = llm
      ? `the configured model (${llm.model}) cannot read images; the image was not analysed`
      : "no vision-capable model is configured; the image was not analysed";
    seen = { analysed: false, description: null, note };
  }
  tally.lap("image");
  return seen;
}

async function planSearches({ deps, request, signal, tally }: Run, imageDescription: string | null): Promise<Plan> {
  const stage = tally.begin("plan");
  const plan = await planQueries(deps.llm, request.prompt, imageDescription, signal, stage.traceparent());
  tally.addUsage(plan.usage);
  if (plan.error !== undefined) tally.notes.push(`planning fell back to key phrases (${modelFailureNote(plan.error, deps.log, "plan")})`);
  tally.lap("plan");
  return plan;
}

/** Every planned query to every provider, then the best hits read; with early reads, reading starts as the first lists arrive. */
async function searchAndRead({ deps, request, signal, tally }: Run, queries: string[]): Promise<Found> {
  const scopes = { whitelist: request.whitelist, blacklist: request.blacklist };
  const searching = tally.begin("search");
  const early =
    deps.settings.read.early && deps.settings.read.maxPages > 0
      ? new EarlyReads(deps.contents, deps.settings.read.maxPages, signal)
      : undefined;
  const { hits, reports } = await fanOut({
    sources: deps.sources,
    queries,
    scopes,
    settings: deps.settings.fanout,
    breakers: deps.breakers,
    latencies: deps.latencies,
    // The pages the run reads are what it needs in hand; with none to read, one result is something to answer from.
    need: Math.max(1, deps.settings.read.maxPages),
    signal,
    log: deps.log,
    span: searching,
    onList: early && ((list) => early.offer(list)),
  });
  tally.lap("search");
  const reading = tally.begin("read");
  const outcomes = await readHits(deps.contents, hits, deps.settings.read, signal, deps.readTimes, early, reading);
  for (const { hit, cut } of outcomes)
    if (cut) deps.log.info("page read cut after grace", { url: hit.url, waited_ms: cut.waitedMs, grace_ms: cut.graceMs });
  tally.lap("read");
  return { hits, reports, outcomes };
}

/** What passages rank against: the prompt, the planned queries, what the image shows, and the output_format's fields. */
function rankingQuestion(request: ResearchRequest, queries: string[], imageDescription: string | null): string {
  // The fields of an output_format are asked as much as the prompt: passages that speak of them rank too.
  const fields = request.outputFormat ? shapeWords(request.outputFormat.shape) : "";
  return [request.prompt, ...queries, imageDescription ?? "", fields].join("\n");
}

function rankEvidence({ deps, tally }: Run, question: string, outcomes: ReadOutcome[]): Evidence {
  tally.begin("rank");
  const evidence = gatherEvidence(question, outcomes, deps.llm ? deps.settings.rank : extractiveBudget(deps.settings.rank), deps.passages);
  tally.lap("rank");
  return evidence;
}

/** The answer's events: a structured value, the no-sources sentence, a model's stream or the extractive answer. Returns the text answered. */
async function* answer(run: Run, queries: string[], sources: EvidenceSource[]): AsyncGenerator<ResearchEvent, string> {
  const { request, deps } = run;
  if (request.outputFormat) {
    const shaped = truncateLists(await structuredAnswer(run, request.outputFormat, sources), request.maxResults);
    const text = JSON.stringify(shaped);
    yield { type: "response", content: shaped };
    return text;
  }
  if (sources.length === 0) {
    yield { type: "response", content: NO_SOURCES_ANSWER };
    return NO_SOURCES_ANSWER;
  }
  if (deps.llm) return yield* modelAnswer(run, deps.llm, queries, sources);
  return yield* extractiveAnswer(request.prompt, queries, sources);
}

/** The model's answer as it streams, its citations filtered; a model that fails before saying anything is answered extractively. */
async function* modelAnswer(run: Run, llm: LlmPort, queries: string[], sources: EvidenceSource[]): AsyncGenerator<ResearchEvent, string> {
  const { deps, request, image, signal, tally } = run;
  const filter = citationFilter(new Set(sources.map((s) => s.id)));
  const stream = llm.streamAnswer(
    { prompt: request.prompt, sources, ...(image && llm.vision ? { image } : {}) },
    signal,
    tally.stageTraceparent(),
  );
  let text = "";
  let sent = false;
  try {
    for await (const delta of stream.deltas) {
      const clean = filter.push(delta);
      if (!clean) continue;
      sent = true;
      text += clean;
      yield { type: "response", content: clean };
    }
    const rest = filter.flush();
    if (rest) {
      text += rest;
      yield { type: "response", content: rest };
    }
    tally.addUsage(await stream.usage);
  } catch (error) {
    signal.throwIfAborted();
    // Half an answer cannot fall back: the run fails, in our words (the provider's are logged).
    if (sent)
      throw new ServiceError(
        "service_unavailable",
        `the language model stopped answering mid-way: ${modelFailureWords(modelFailure(error, deps.log, "answer"))}`,
      );
    tally.notes.push(`the language model failed (${modelFailureNote(error, deps.log, "answer")}); answered extractively`);
    const extractive = yield* extractiveAnswer(request.prompt, queries, sources);
    return text + extractive;
  }
  return text;
}

/** The extractive answer's events, sentence by sentence so it streams like a model's; returns the whole text. */
async function* extractiveAnswer(prompt: string, queries: string[], sources: EvidenceSource[]): AsyncGenerator<ResearchEvent, string> {
  let text = "";
  for (const chunk of extractiveChunks(prompt, queries, sources)) {
    text += chunk;
    yield { type: "response", content: chunk };
  }
  return text;
}

/** No model reported usage: count what the engine processed and produced with a real tokenizer. */
function countedUsage(question: string, processedTokens: number, answerText: string): TokenUsage {
  const prompt = countTokens(question) + processedTokens;
  const completion = countTokens(answerText);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function runInfo({ deps, tally }: Run, plan: Plan, found: Found, seen: ImageReading): RunInfo {
  const { outcomes } = found;
  return {
    ...tokenReport(tally.usage),
    model: deps.llm ? deps.llm.model : "extractive",
    planner: plan.planner,
    queries: plan.queries,
    timings_ms: tally.timings,
    providers: found.reports,
    pages: {
      read: outcomes.filter((o) => o.page && !o.cached).length,
      from_cache: outcomes.filter((o) => o.page && o.cached).length,
      failed: outcomes.filter((o) => !o.page && !o.cut).length,
      cut: outcomes.flatMap((o) =>
        o.cut ? [{ url: o.hit.url, waited_ms: o.cut.waitedMs, grace_ms: o.cut.graceMs, reason: "straggler" as const }] : [],
      ),
      errors: outcomes
        .filter((o) => o.error && !o.cut)
        .map((o) => `${o.hit.url}: ${o.error}`)
        .slice(0, 10),
    },
    sources_found: found.hits.length,
    image_analysed: seen.analysed,
    ...(seen.note ? { image_note: seen.note } : {}),
    notes: tally.notes,
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
  { deps, request, signal, tally }: Run,
  { schema, shape }: NonNullable<ResearchRequest["outputFormat"]>,
  sources: EvidenceSource[],
): Promise<Record<string, unknown>> {
  const prompt = request.prompt;
  const extractive = () => fillOutputFormat({ prompt, shape, schema, sources }).value;
  if (!deps.llm || sources.length === 0) return extractive();
  let hint: string | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const { value, usage } = await deps.llm.structuredAnswer(
        { prompt, schema, sources, ...(hint ? { repairHint: hint } : {}) },
        signal,
        tally.stageTraceparent(),
      );
      tally.addUsage(usage);
      if (conforms(schema, value)) return value as Record<string, unknown>;
      hint = "it did not match the JSON schema (every field present, the right types, null when unknown, no extra fields)";
    } catch (error) {
      signal.throwIfAborted();
      const failure = modelFailure(error, deps.log, "structured answer");
      if (failure !== "model_output_invalid") {
        // Not an answer to repair (a refused key, an outage): asking again would not help.
        tally.notes.push(`the language model failed (${failure}: ${modelFailureWords(failure)}); filled by typed extraction instead`);
        return extractive();
      }
      hint = "it could not be parsed as JSON matching the schema";
    }
  }
  tally.notes.push("the language model's structured answer was invalid twice; filled by typed extraction instead");
  return extractive();
}
