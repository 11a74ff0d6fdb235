/**
 * Read: the top hits through the contents module (cache first), several at
 * once, within a time budget. What is not read in time, or fails, is still
 * a source through its search snippet; reads that are cut off keep going in
 * the background (bounded by the fetcher's own deadline) so the page cache
 * and the local index still get them. A hit whose read started early (see
 * early-reads.ts) is awaited, not read again, and takes no reading slot.
 * Once most reads are in, the rest get a grace and are then cut
 * (read-grace.ts): the run does not wait for its slowest page either.
 */
import { untilAborted } from "../abort.ts";
import { parseRequestedUrl } from "../contents/egress/policy.ts";
import type { PageText } from "../contents/queries.ts";
import { readPageText, type ContentsContext, type PageRead } from "../contents/service.ts";
import { pageReadDone } from "../contents/read-metrics.ts";
import { ServiceError } from "../errors.ts";
import { NO_SPAN, tracingEnabled, type TraceSpan } from "../observe/trace.ts";
import type { CallLatencies } from "./call-latencies.ts";
import type { EarlyReads } from "./early-reads.ts";
import type { MergedHit } from "./fanout.ts";
import { ReadGrace, type ReadCut, type ReadGraceSettings } from "./read-grace.ts";

export interface ReadSettings {
  maxPages: number;
  concurrency: number;
  budgetMs: number;
  /** Whether reading starts while the fan-out still waits (see early-reads.ts). */
  early: boolean;
  /** Going on without the slowest reads (read-grace.ts). */
  grace: ReadGraceSettings;
}

export interface ReadOutcome {
  hit: MergedHit;
  page: PageText | null;
  cached: boolean;
  error: string | null;
  /** Set when the run went on without this read. */
  cut?: ReadCut;
}

export async function readHits(
  contents: ContentsContext,
  hits: MergedHit[],
  settings: ReadSettings,
  signal: AbortSignal,
  readTimes: CallLatencies,
  early?: EarlyReads,
  span: TraceSpan = NO_SPAN,
): Promise<ReadOutcome[]> {
  const chosen = hits.slice(0, settings.maxPages);
  const outcomes: ReadOutcome[] = chosen.map((hit) => ({ hit, page: null, cached: false, error: "not read in time" }));
  const budget = AbortSignal.any([signal, AbortSignal.timeout(settings.budgetMs)]);
  const grace = new ReadGrace({ settings: settings.grace, reads: chosen.length, latencies: readTimes, signal: budget });
  /** `read` is given the read's signal and what to call once its site has answered (at a time, when that was earlier). */
  const settle = async (
    outcome: ReadOutcome,
    read: (signal: AbortSignal, fetched: (at?: number) => void) => Promise<PageRead<PageText>>,
    startedAt?: number,
  ) => {
    const began = startedAt ?? performance.now();
    const graced = grace.begin(startedAt);
    // A page is a third party's: the span names its host, never its path or query, and no trace context is sent to it.
    const traced = span.child("page.read", { "server.address": tracingEnabled() ? hostOf(outcome.hit.url) : undefined }, "client");
    try {
      const { page, cached } = await untilAborted(
        read(graced.signal, (at) => grace.fetched(graced, at)),
        graced.signal,
      );
      outcome.page = page;
      outcome.cached = cached;
      outcome.error = null;
      traced.set({ "page.content_chars": page.markdown.length });
    } catch (error) {
      if (signal.aborted) {
        traced.fail("aborted");
        throw signal.reason;
      }
      const cut = grace.cutOf(graced);
      if (cut) outcome.cut = cut;
      outcome.error = cut
        ? cut.message
        : error instanceof ServiceError
          ? pageFailure(error)
          : budget.aborted
            ? "not read in time"
            : "read failed";
      const upstream = error instanceof ServiceError ? error.extra.body?.upstream_status : undefined;
      traced.set({
        "error.type": cut ? "cut" : error instanceof ServiceError ? error.code : budget.aborted ? "budget" : "other",
        "http.response.status_code": typeof upstream === "number" ? upstream : undefined,
      });
      traced.fail(cut ? "cut" : "failed");
    } finally {
      grace.settle(graced);
      if (!signal.aborted) {
        const result = outcome.cut ? "cut" : outcome.page ? (outcome.cached ? "cached" : "fetched") : "failed";
        pageReadDone(result, began);
        traced.set({ "page.outcome": result, "page.cache_hit": outcome.cached });
      }
      traced.end();
    }
  };
  const waiting: Promise<void>[] = [];
  const queue: ReadOutcome[] = [];
  for (const outcome of outcomes) {
    const started = early?.take(outcome.hit.key);
    if (started)
      waiting.push(
        settle(
          outcome,
          (_signal, fetched) => {
            void started.fetched.then(fetched);
            return started.read;
          },
          started.startedAt,
        ),
      );
    else queue.push(outcome);
  }
  let next = 0;
  const worker = async () => {
    while (next < queue.length && !budget.aborted) {
      const outcome = queue[next++]!;
      // The answer needs the page, not its cache write: that finishes in the background.
      await settle(outcome, async (readSignal, fetched) =>
        readPageText(contents, {
          url: parseRequestedUrl(outcome.hit.url, ["url"]),
          signal: readSignal,
          waitForStore: false,
          onFetched: () => fetched(),
        }),
      );
    }
  };
  const workers = Math.min(settings.concurrency, queue.length);
  await Promise.all([...waiting, ...Array.from({ length: workers }, worker)]);
  return outcomes;
}

/** The host of a hit's URL, all of it a span may name. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** A page's failure as info.pages.errors shows it: our code, and the site's status when it answered one. */
function pageFailure(error: ServiceError): string {
  const upstream = error.extra.body?.upstream_status;
  return upstream === undefined ? error.code : `${error.code} ${upstream}`;
}
