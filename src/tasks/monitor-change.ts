/**
 * Whether a monitor's answer changed in substance from its last run's. A
 * structured answer changed when a field's value did (by path, before and
 * after). Prose changed when the sources it cites did, or its claims (each
 * sentence, whitespace-normalised, its [n] markers read as the URLs they
 * cite): new wording around the same citations is a change of a claim,
 * while a source merely re-numbered, or fetched again, is not.
 */

interface Result {
  response: unknown;
  context?: { id: number; metadata: { url: string } }[];
}

export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

export type MonitorChanges =
  | { kind: "fields"; fields: FieldChange[] }
  | {
      kind: "prose";
      sources: { added: string[]; removed: string[] };
      claims: { added: string[]; removed: string[] };
    }
  | { kind: "shape"; before: "structured" | "prose"; after: "structured" | "prose" };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The changes from `before` to `after`, or null when the answer is the same in substance. */
export function compareResults(before: Result, after: Result): MonitorChanges | null {
  const was = isObject(before.response);
  const is = isObject(after.response);
  if (was !== is) return { kind: "shape", before: was ? "structured" : "prose", after: is ? "structured" : "prose" };
  if (was && is) {
    const fields = compareFields(before.response as Record<string, unknown>, after.response as Record<string, unknown>);
    return fields.length === 0 ? null : { kind: "fields", fields };
  }
  const a = proseOf(before);
  const b = proseOf(after);
  const sources = difference(a.sources, b.sources);
  const claims = difference(a.claims, b.claims);
  if (sources.added.length + sources.removed.length + claims.added.length + claims.removed.length === 0) return null;
  return { kind: "prose", sources, claims };
}

/** Every leaf of both objects by its dotted path (an array is one value), where the two differ; in the order of `after`, then `before`'s removed. */
export function compareFields(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const left = leaves(before);
  const right = leaves(after);
  const changes: FieldChange[] = [];
  for (const [path, value] of right) {
    const old = left.has(path) ? left.get(path) : null;
    if (!sameValue(old, value)) changes.push({ path, before: old, after: value });
  }
  for (const [path, value] of left) if (!right.has(path)) changes.push({ path, before: value, after: null });
  return changes;
}

function leaves(value: Record<string, unknown>, prefix = "", out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isObject(inner) && Object.keys(inner).length > 0) leaves(inner, path, out);
    else out.set(path, inner);
  }
  return out;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") return normalise(a) === normalise(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

const normalise = (text: string) => text.replace(/\s+/g, " ").trim();

/** A citation: [1], or [1, 3], or [1][3]. */
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** The prose's cited sources (URLs) and its claims (sentences with markers read as URLs). */
export function proseOf(result: Result): { sources: Set<string>; claims: Set<string> } {
  const text = typeof result.response === "string" ? result.response : JSON.stringify(result.response);
  const urls = new Map((result.context ?? []).map((entry) => [entry.id, entry.metadata.url]));
  const sources = new Set<string>();
  const cite = (list: string) =>
    list
      .split(",")
      .map((n) => urls.get(Number(n.trim())))
      .filter((url): url is string => url !== undefined);
  for (const match of text.matchAll(MARKER)) for (const url of cite(match[1]!)) sources.add(url);
  const claims = new Set<string>();
  for (const sentence of sentences(text)) {
    const claim = normalise(sentence.replace(MARKER, (_, list: string) => `[${cite(list).join(", ")}]`));
    if (claim) claims.add(claim);
  }
  return { sources, claims };
}

/** Sentences: split after . ! or ? (and any markers that follow them) before whitespace, and at line breaks. */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?](?:\s*\[[\d,\s]+\])*)\s+(?!\[)|\n+/);
}

function difference(before: Set<string>, after: Set<string>): { added: string[]; removed: string[] } {
  return { added: [...after].filter((x) => !before.has(x)), removed: [...before].filter((x) => !after.has(x)) };
}
