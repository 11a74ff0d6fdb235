/**
 * npm run bench:contents            (BENCH_PAGES=N for the first N pages only)
 *
 * Our extractor against the usual choice, measured in the same run on
 * trafilatura's eval set (../shared/data/extraction-eval):
 *
 * - ours: extractDocument (linkedom + Readability + container rules), bytes
 *   in, text/markdown/HTML out;
 * - baseline: @mozilla/readability on jsdom, `new JSDOM(bytes, {url})`,
 *   `new Readability(document).parse()`, its textContent as the text.
 *
 * Both run sequentially on one thread, page by page, alternating which goes
 * first so machine noise hits both alike. Reported: pages per second, p50 and
 * p99 time per page, F1 on the eval segments, and speed as a ratio to the
 * baseline.
 */
import { Readability } from "@mozilla/readability";
import { JSDOM, VirtualConsole } from "jsdom";
import { extractDocument } from "../src/contents/extract/index.ts";
import {
  aggregateSegments,
  loadEvalSet,
  readEvalPage,
  scoreSegments,
  type EvalPage,
  type SegmentCounts,
} from "../test/extraction/evaluation.ts";
import { printTable, summarize, writeResults, type Row } from "./lib/report.ts";
import { sharedPath } from "../test/helpers/shared.ts";

const dataDir = sharedPath("data");
const LIMIT = Number(process.env.BENCH_PAGES ?? 0) || undefined;
const WARMUP = 20;

interface Subject {
  name: string;
  extract(body: Uint8Array, page: EvalPage): Promise<{ text: string; markdown?: string }>;
}

const ours: Subject = {
  name: "ours: extractDocument (linkedom)",
  async extract(body, page) {
    const doc = await extractDocument({ body, contentType: "text/html", url: page.url });
    return { text: doc.text, markdown: doc.markdown };
  },
};

// jsdom reports every stylesheet it cannot parse; that is noise here.
const quiet = new VirtualConsole();
const baseline: Subject = {
  name: "baseline: Readability on jsdom",
  async extract(body, page) {
    const dom = new JSDOM(Buffer.from(body), { url: page.url, contentType: "text/html", virtualConsole: quiet });
    try {
      const article = new Readability(dom.window.document).parse();
      return { text: article?.textContent ?? "" };
    } finally {
      dom.window.close();
    }
  },
};

interface Measured {
  ms: number[];
  text: SegmentCounts[];
  markdown: SegmentCounts[];
  errors: number;
}

async function measure(subject: Subject, body: Uint8Array, page: EvalPage, into: Measured): Promise<void> {
  const started = Bun.nanoseconds();
  let output: { text: string; markdown?: string } = { text: "" };
  try {
    output = await subject.extract(body, page);
  } catch {
    into.errors++;
  }
  into.ms.push((Bun.nanoseconds() - started) / 1e6);
  into.text.push(scoreSegments(output.text, page));
  if (output.markdown !== undefined) into.markdown.push(scoreSegments(output.markdown, page));
}

const { dir, pages: all } = loadEvalSet(dataDir);
const pages = LIMIT ? all.slice(0, LIMIT) : all;
const bodies = pages.map((page) => readEvalPage(dir, page));

// Warm up both (JIT, lazy module init) on the first pages, unmeasured.
for (let i = 0; i < Math.min(WARMUP, pages.length); i++) {
  await ours.extract(bodies[i]!, pages[i]!).catch(() => undefined);
  await baseline.extract(bodies[i]!, pages[i]!).catch(() => undefined);
}

const results = new Map<Subject, Measured>([ours, baseline].map((s) => [s, { ms: [], text: [], markdown: [], errors: 0 }]));
const rssBefore = process.memoryUsage().rss;
for (let i = 0; i < pages.length; i++) {
  const order = i % 2 === 0 ? [ours, baseline] : [baseline, ours];
  for (const subject of order) await measure(subject, bodies[i]!, pages[i]!, results.get(subject)!);
  if ((i + 1) % 100 === 0) console.error(`${i + 1}/${pages.length} pages`);
}

const base = results.get(baseline)!;
const baseStats = summarize(base.ms);
const rows: Row[] = [...results].map(([subject, m]) => {
  const stats = summarize(m.ms);
  const text = aggregateSegments(m.text);
  const row: Row = {
    extractor: subject.name,
    pages: m.ms.length,
    errors: m.errors,
    pages_per_s: 1000 / stats.mean,
    p50_ms: stats.p50,
    p99_ms: stats.p99,
    max_ms: Math.max(...m.ms),
    speed_vs_baseline: baseStats.mean / stats.mean,
    p50_vs_baseline: baseStats.p50 / stats.p50,
    text_precision: text.precision,
    text_recall: text.recall,
    text_f1: text.f1,
    markdown_f1: m.markdown.length > 0 ? aggregateSegments(m.markdown).f1 : "n/a",
  };
  return row;
});

printTable(`Extraction on trafilatura's eval set (${pages.length} pages, one thread, same run)`, rows);
console.log("\nspeed_vs_baseline = baseline mean time per page / this extractor's (higher is faster).");
// RSS is shared by both subjects; jsdom's windows account for nearly all of its growth (ours alone stays flat).
const path = writeResults("contents", { pages: pages.length, rows, processRssGrowthMB: (process.memoryUsage().rss - rssBefore) / 1e6 });
console.log(`\nwrote ${path}`);
