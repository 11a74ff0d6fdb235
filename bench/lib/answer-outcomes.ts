/**
 * One question's outcome on one app, and the figures over many: what the
 * answer bench prints and writes. Judging is answer-scoring.ts's; this file
 * applies it to a reply and adds up.
 */
import { percentile } from "./report.ts";
import type { AnswerKind, PlainQuestion, StructuredQuestion } from "./answer-set.ts";
import {
  citationHolds,
  citedSentences,
  fieldSupported,
  filledFields,
  holdsExpected,
  plainCause,
  scoreFields,
  type FieldScore,
  type PlainCause,
} from "./answer-scoring.ts";
import type { SearchReply } from "./answer-subject.ts";

const ANSWER_CHARS = 400;

interface Common {
  id: string;
  split: "dev" | "holdout";
  ok: boolean;
  /** The question's page is among the context entries. */
  found: boolean;
  /** The search peer ranked the page among the hits the app takes for some query of this run. */
  offered: boolean;
  contextRank: number | null;
  contextSize: number;
  status: number;
  ms: number;
  answer: string;
  causes: string[];
}

export interface PlainOutcome extends Common {
  kind: AnswerKind;
  cause: PlainCause | null;
  cited: number;
  citedHeld: number;
}

export interface StructuredOutcome extends Common {
  fields: FieldScore[];
  filled: number;
  /** Filled leaves no context entry states, as "path: value". */
  unsupported: string[];
}

export type Outcome = PlainOutcome | StructuredOutcome;

export interface Sighting {
  found: boolean;
  /** Where the page sits among the context entries (1 = first), and how many there are. */
  contextRank: number | null;
  contextSize: number;
  offered: boolean;
}

const trim = (text: string) => (text.length > ANSWER_CHARS ? `${text.slice(0, ANSWER_CHARS - 1)}…` : text);

export function judgePlain(q: PlainQuestion, reply: SearchReply, seen: Sighting): PlainOutcome {
  const answer = typeof reply.response === "string" ? reply.response : JSON.stringify(reply.response);
  const ok = reply.status === 200 && holdsExpected(answer, q.expected);
  const cause = plainCause({ ok, status: reply.status, found: seen.found, answer });
  const cited = reply.status === 200 ? citedSentences(answer) : [];
  const held = cited.filter((c) => citationHolds(c, reply.context));
  const causes: string[] = cause ? [cause] : [];
  if (held.length < cited.length) causes.push(`${cited.length - held.length} cited sentence(s) not in the cited entry`);
  return {
    id: q.id,
    split: q.split,
    kind: q.kind,
    ok,
    ...seen,
    status: reply.status,
    ms: reply.ms,
    answer: trim(reply.error ?? answer),
    cause,
    causes,
    cited: cited.length,
    citedHeld: held.length,
  };
}

export function judgeStructured(q: StructuredQuestion, reply: SearchReply, seen: Sighting): StructuredOutcome {
  const shape = q.output_format as Parameters<typeof scoreFields>[0];
  const failed = reply.status !== 200;
  const fields = scoreFields(shape, q.expected, failed ? null : reply.response).map((f) =>
    failed ? { ...f, ok: false, cause: "request failed" as const } : f,
  );
  const contents = reply.context.map((c) => c.metadata.content);
  const filled = failed ? [] : filledFields(shape, reply.response);
  const unsupported = filled.filter((f) => !fieldSupported(f, contents)).map((f) => `${f.path}: ${JSON.stringify(f.value)}`);
  return {
    id: q.id,
    split: q.split,
    ok: fields.every((f) => f.ok),
    ...seen,
    status: reply.status,
    ms: reply.ms,
    answer: trim(reply.error ?? JSON.stringify(reply.response)),
    causes: [...fields.filter((f) => !f.ok).map((f) => `${f.path}: ${f.cause}`), ...unsupported.map((u) => `unsupported ${u}`)],
    fields,
    filled: filled.length,
    unsupported,
  };
}

export interface Figure {
  name: string;
  value: number;
  unit: "share" | "count" | "ms";
}

const share = (part: number, whole: number) => (whole === 0 ? Number.NaN : part / whole);
const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);
const times = (outcomes: Outcome[]) => outcomes.map((o) => o.ms).sort((a, b) => a - b);

/** The headline figures over some outcomes (shares as fractions; NaN where there is nothing to count). */
export function figures(plain: PlainOutcome[], structured: StructuredOutcome[]): Figure[] {
  const found = plain.filter((o) => o.found);
  const fields = structured.flatMap((o) => o.fields);
  const filled = sum(structured.map((o) => o.filled));
  const cited = sum(plain.map((o) => o.cited));
  const rows: [string, number, Figure["unit"]][] = [
    ["plain questions", plain.length, "count"],
    ["plain: answer holds the expected fact", share(plain.filter((o) => o.ok).length, plain.length), "share"],
    ["plain: page offered by search", share(plain.filter((o) => o.offered).length, plain.length), "share"],
    ["plain: page found (in context)", share(found.length, plain.length), "share"],
    ["plain: holds the fact, among found", share(found.filter((o) => o.ok).length, found.length), "share"],
    ["structured questions", structured.length, "count"],
    ["structured: expected fields", fields.length, "count"],
    ["structured: fields right", share(fields.filter((f) => f.ok).length, fields.length), "share"],
    ["structured: questions all right", share(structured.filter((o) => o.ok).length, structured.length), "share"],
    ["structured: page found (in context)", share(structured.filter((o) => o.found).length, structured.length), "share"],
    ["structured: filled fields", filled, "count"],
    ["structured: filled but unsupported", share(sum(structured.map((o) => o.unsupported.length)), filled), "share"],
    ["cited sentences (plain)", cited, "count"],
    ["cited sentences in the cited entry", share(sum(plain.map((o) => o.citedHeld)), cited), "share"],
    ["plain p50 ms", percentile(times(plain), 50), "ms"],
    ["plain p95 ms", percentile(times(plain), 95), "ms"],
    ["structured p50 ms", percentile(times(structured), 50), "ms"],
    ["structured p95 ms", percentile(times(structured), 95), "ms"],
    ["requests failed", [...plain, ...structured].filter((o) => o.status !== 200).length, "count"],
  ];
  return rows.map(([name, value, unit]) => ({ name, value, unit }));
}

/** How many items per group (and in "(all)"), how many right (no cause), and how many with each cause. */
export function failureCounts<T>(items: T[], group: (t: T) => string, causes: (t: T) => string[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  const add = (name: string, key: string) => {
    const counts = out.get(name) ?? new Map<string, number>();
    counts.set(key, (counts.get(key) ?? 0) + 1);
    out.set(name, counts);
  };
  for (const item of items) {
    const found = causes(item);
    for (const name of ["(all)", group(item)]) {
      add(name, "total");
      for (const key of found.length ? found : ["right"]) add(name, key);
    }
  }
  return out;
}
