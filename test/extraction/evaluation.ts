/**
 * Quality measurement for the extractor, on two public data sets that sit in
 * the shared data folder (not in the repository):
 *
 * - `extraction-eval/`: trafilatura's comparison set. Each page lists text
 *   segments that belong to the main content (`with`) and segments that are
 *   boilerplate (`without`); a segment counts as extracted when it occurs in
 *   the output after whitespace is collapsed. Precision, recall and F1 are
 *   pooled over every segment of every page, as trafilatura's own benchmark
 *   does, so our figures compare with the published ones.
 * - `extraction-dev/`: Mozilla Readability's test pages, with Readability's
 *   own output and metadata. Text overlap is measured on 4-word shingles.
 *
 * Everything here is pure except the two loaders, which read files.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { parseHTML } from "linkedom";

// ---------------------------------------------------------------- eval set

export interface EvalPage {
  url: string;
  file: string;
  with: string[];
  without: string[];
}

export interface SegmentCounts {
  truePositives: number;
  falseNegatives: number;
  falsePositives: number;
  trueNegatives: number;
}

export interface SegmentScore extends SegmentCounts {
  precision: number;
  recall: number;
  f1: number;
  accuracy: number;
}

/** Collapses every whitespace run to one space, as the benchmark does on both sides. */
export function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function scoreSegments(output: string, page: Pick<EvalPage, "with" | "without">): SegmentCounts {
  const haystack = normaliseWhitespace(output);
  const found = (segment: string) => haystack.includes(normaliseWhitespace(segment));
  const hits = page.with.filter(found).length;
  const leaks = page.without.filter(found).length;
  return {
    truePositives: hits,
    falseNegatives: page.with.length - hits,
    falsePositives: leaks,
    trueNegatives: page.without.length - leaks,
  };
}

export function aggregateSegments(counts: SegmentCounts[]): SegmentScore {
  const sum = (key: keyof SegmentCounts) => counts.reduce((s, c) => s + c[key], 0);
  const tp = sum("truePositives");
  const fn = sum("falseNegatives");
  const fp = sum("falsePositives");
  const tn = sum("trueNegatives");
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const total = tp + fn + fp + tn;
  return {
    truePositives: tp,
    falseNegatives: fn,
    falsePositives: fp,
    trueNegatives: tn,
    precision,
    recall,
    f1,
    accuracy: total === 0 ? 0 : (tp + tn) / total,
  };
}

/** Reads `evaldata.json`; page bodies are read on demand with {@link readEvalPage}. */
export function loadEvalSet(dataDir: string): { dir: string; pages: EvalPage[] } {
  const dir = join(dataDir, "extraction-eval");
  const raw = JSON.parse(readFileSync(join(dir, "evaldata.json"), "utf8")) as Record<
    string,
    { file: string; with?: string[]; without?: string[] }
  >;
  const pages = Object.entries(raw).map(([url, entry]) => ({
    url,
    file: entry.file,
    with: entry.with ?? [],
    without: entry.without ?? [],
  }));
  return { dir, pages };
}

export function readEvalPage(dir: string, page: EvalPage): Uint8Array {
  return readFileSync(join(dir, "pages", page.file));
}

// ---------------------------------------------------------------- dev set

export const METADATA_FIELDS = ["title", "byline", "lang", "siteName", "publishedTime"] as const;
export type MetadataField = (typeof METADATA_FIELDS)[number];
export type DevMetadata = Partial<Record<MetadataField | "excerpt" | "dir", string | null>>;

export interface DevCase {
  name: string;
  source: Uint8Array;
  expectedText: string;
  expectedMetadata: DevMetadata;
}

/** What the extractor produced for one dev page, in the dev set's field names. */
export interface DevOutput {
  text: string;
  metadata: Record<MetadataField, string | null>;
}

export interface DevPageScore {
  name: string;
  /** Per field: did the extracted value equal the expected one? */
  metadata: Record<MetadataField, boolean>;
  shinglePrecision: number;
  shingleRecall: number;
}

export interface DevScore {
  pages: number;
  metadataAccuracy: Record<MetadataField, number>;
  shinglePrecision: number;
  shingleRecall: number;
  shingleF1: number;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase word 4-grams; a text shorter than four words is one shingle of what it has. */
export function shingles(text: string, size = 4): Set<string> {
  const words = text.toLowerCase().match(WORD) ?? [];
  const out = new Set<string>();
  if (words.length > 0 && words.length < size) out.add(words.join(" "));
  for (let i = 0; i + size <= words.length; i++) out.add(words.slice(i, i + size).join(" "));
  return out;
}

function overlap(extracted: Set<string>, expected: Set<string>): { precision: number; recall: number } {
  if (extracted.size === 0 && expected.size === 0) return { precision: 1, recall: 1 };
  let common = 0;
  for (const s of extracted) if (expected.has(s)) common++;
  return { precision: extracted.size === 0 ? 0 : common / extracted.size, recall: expected.size === 0 ? 0 : common / expected.size };
}

/** Trimmed exact match; dates match when they name the same instant, however written. */
function sameValue(field: MetadataField, actual: string | null, expected: string | null | undefined): boolean {
  const a = actual?.trim() || null;
  const e = expected?.trim() || null;
  if (a === null || e === null) return a === e;
  if (field === "publishedTime") {
    const ta = Date.parse(a);
    const te = Date.parse(e);
    if (!Number.isNaN(ta) && !Number.isNaN(te)) return ta === te;
  }
  return a === e;
}

export function scoreDevPage(output: DevOutput, devCase: DevCase): DevPageScore {
  const metadata = Object.fromEntries(
    METADATA_FIELDS.map((f) => [f, sameValue(f, output.metadata[f], devCase.expectedMetadata[f])]),
  ) as Record<MetadataField, boolean>;
  const { precision, recall } = overlap(shingles(output.text), shingles(devCase.expectedText));
  return { name: devCase.name, metadata, shinglePrecision: precision, shingleRecall: recall };
}

export function aggregateDev(scores: DevPageScore[]): DevScore {
  const n = scores.length;
  const mean = (pick: (s: DevPageScore) => number) => (n === 0 ? 0 : scores.reduce((sum, s) => sum + pick(s), 0) / n);
  const metadataAccuracy = Object.fromEntries(METADATA_FIELDS.map((f) => [f, mean((s) => (s.metadata[f] ? 1 : 0))])) as Record<
    MetadataField,
    number
  >;
  const shinglePrecision = mean((s) => s.shinglePrecision);
  const shingleRecall = mean((s) => s.shingleRecall);
  const shingleF1 =
    shinglePrecision + shingleRecall === 0 ? 0 : (2 * shinglePrecision * shingleRecall) / (shinglePrecision + shingleRecall);
  return { pages: n, metadataAccuracy, shinglePrecision, shingleRecall, shingleF1 };
}

/** The text of Readability's expected output, block boundaries kept as line breaks. */
export function htmlToReferenceText(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return document.body?.textContent ?? "";
}

export function loadDevSet(dataDir: string): DevCase[] {
  const dir = join(dataDir, "extraction-dev");
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "source.html")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const folder = join(dir, name);
      const expectedHtml = existsSync(join(folder, "expected.html")) ? readFileSync(join(folder, "expected.html"), "utf8") : "";
      const metadataPath = join(folder, "expected-metadata.json");
      return {
        name,
        source: readFileSync(join(folder, "source.html")),
        expectedText: htmlToReferenceText(expectedHtml),
        expectedMetadata: existsSync(metadataPath) ? (JSON.parse(readFileSync(metadataPath, "utf8")) as DevMetadata) : {},
      };
    });
}

/** The address Readability's own test suite gives every dev page; relative links resolve against it. */
export const DEV_PAGE_URL = "http://fakehost/test/page.html";
