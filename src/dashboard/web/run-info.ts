/**
 * How a run went, read for people: which sources the answer cites (and which
 * it read without citing), how each search provider fared, and the one line
 * that sums a run up. Pure, so the rules are tested without a browser.
 */
import { formatCount, formatMoney, formatMs } from "./format.ts";
import type { NodeReport, ProviderReport, RunInfo, SearchResult, Source } from "./model.ts";

const CITATION = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** The source ids a text answer's [n] and [n, m] markers name. */
export function citedIds(text: string): Set<number> {
  const ids = new Set<number>();
  for (const found of text.matchAll(CITATION)) for (const n of found[1]!.split(",")) ids.add(Number(n.trim()));
  return ids;
}

export interface SourceSplit {
  /** Sources the answer cites, by their number. */
  cited: Source[];
  /** Sources read for the answer that it does not cite, by their number. */
  uncited: Source[];
  /** False for a structured answer: it has no markers, so which sources it used cannot be told. */
  known: boolean;
}

/** Cited sources first, then the ones read but not cited; a structured answer's are all listed as used. */
export function splitSources(result: Pick<SearchResult, "response" | "context">): SourceSplit {
  const byId = [...result.context].sort((a, b) => a.id - b.id);
  if (typeof result.response !== "string") return { cited: byId, uncited: [], known: false };
  const ids = citedIds(result.response);
  return { cited: byId.filter((s) => ids.has(s.id)), uncited: byId.filter((s) => !ids.has(s.id)), known: true };
}

export type ProviderOutcome = "answered" | "partly" | "failed" | "skipped" | "unused";

export interface ProviderSummary {
  name: string;
  outcome: ProviderOutcome;
  /** The outcome in words, counts included: "2 of 3 calls answered; 1 too slow". */
  words: string;
  /** The first error it gave, if any (the rest are in the raw response). */
  error: string | null;
}

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** One provider's fate in a run: answered every call, some, none, or was skipped while its circuit was open. */
export function summariseProvider(report: ProviderReport): ProviderSummary {
  const slow = report.cut.length;
  const error = report.errors[0] ?? null;
  if (report.calls === 0) {
    if (report.skipped_by_breaker > 0)
      return { name: report.name, outcome: "skipped", words: "Skipped: it failed too often lately (circuit open)", error };
    return { name: report.name, outcome: "unused", words: "Not called", error };
  }
  const outcome: ProviderOutcome = report.succeeded === report.calls ? "answered" : report.succeeded === 0 ? "failed" : "partly";
  const parts = [`${formatCount(report.succeeded)} of ${plural(report.calls, "call", "calls")} answered`];
  if (report.failed > 0) parts.push(`${formatCount(report.failed)} failed`);
  if (slow > 0) parts.push(`${formatCount(slow)} too slow`);
  return { name: report.name, outcome, words: parts.join("; "), error };
}

export const OUTCOME_WORDS: Record<ProviderOutcome, string> = {
  answered: "OK",
  partly: "Partly",
  failed: "Failed",
  skipped: "Skipped",
  unused: "Not used",
};

/**
 * A search's info and an endpoint's read alike: an endpoint's run tells its steps (info.nodes) instead, so its
 * queries and providers are its search steps' together, its stages are its steps, and its time, which it does not
 * tell, is the one the page measured (`elapsedMs`).
 */
export interface RunView {
  totalMs: number | null;
  /** [stage or step, ms], in the order they ran. */
  stages: [string, number][];
  queries: string[];
  providers: ProviderReport[];
}

/** The same provider's reports from several steps as one: counts added, cut calls and errors joined. */
export function mergeProviders(reports: ProviderReport[]): ProviderReport[] {
  const byName = new Map<string, ProviderReport>();
  for (const report of reports) {
    const seen = byName.get(report.name);
    if (!seen) byName.set(report.name, { ...report, cut: [...report.cut], errors: [...report.errors] });
    else
      byName.set(report.name, {
        name: report.name,
        calls: seen.calls + report.calls,
        succeeded: seen.succeeded + report.succeeded,
        failed: seen.failed + report.failed,
        hedges: seen.hedges + report.hedges,
        skipped_by_breaker: seen.skipped_by_breaker + report.skipped_by_breaker,
        cut: [...seen.cut, ...report.cut],
        errors: [...seen.errors, ...report.errors],
      });
  }
  return [...byName.values()];
}

export function runView(info: RunInfo, elapsedMs: number | null = null): RunView {
  const nodes: NodeReport[] = info.nodes ?? [];
  return {
    totalMs: info.timings_ms?.total ?? (elapsedMs === null ? null : Math.round(elapsedMs)),
    stages: info.timings_ms ? stageTimings(info) : nodes.map((node) => [node.id, node.ms]),
    queries: info.queries ?? nodes.flatMap((node) => node.queries ?? []),
    providers: info.providers ?? mergeProviders(nodes.flatMap((node) => node.providers ?? [])),
  };
}

/**
 * The run in one line, for the collapsed details: "12.3 s · 4,210 tokens · $0.00 · 3 providers". A part the run
 * does not tell (an older answer without timings, a cost not known yet) is left out.
 */
export function runSummary(view: RunView, tokens: number, cost: number | null): string {
  const parts: string[] = [];
  if (view.totalMs !== null) parts.push(formatMs(view.totalMs));
  parts.push(plural(tokens, "token", "tokens"));
  if (cost !== null) parts.push(formatMoney(cost));
  if (view.providers.length > 0) parts.push(plural(view.providers.length, "provider", "providers"));
  return parts.join(" · ");
}

/** The stages the run timed, in the order they ran, without the total. */
export function stageTimings(info: RunInfo): [string, number][] {
  return Object.entries(info.timings_ms ?? {}).filter(([stage]) => stage !== "total");
}
