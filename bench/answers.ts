/**
 * npm run bench:answers [-- --split dev|holdout|all] [--verbose] [--base DIR]
 *
 * The service's answers without a language model, on the development set
 * (bench/data/answers/*.json, or ANSWER_SET_DIR): every page of ../shared/data
 * served as a loopback web with a search engine that ranks them all by text
 * (lib/answer-web.ts), the app as the tests start it (embedded database, no
 * model) asked each question with POST /v1/search, and the answers judged by
 * lib/answer-scoring.ts. Per split: plain answers holding the expected fact,
 * structured fields right, filled fields no source states, cited sentences
 * found in their cited entry, and time per question; then the failures, by
 * kind of question and by type of field, with their causes.
 *
 * The set is checked first (bench/answers-check.ts's check): a broken set is
 * not measured. `--base DIR` runs another checkout (a git worktree of an
 * earlier commit, with node_modules) in the same process, its own app and
 * code, the questions alternating between the two so machine noise hits
 * both: each figure reads "after / before". BENCH_QUESTIONS=N asks only the
 * first N plain and first N structured questions of the split.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { checkAnswerSet, loadAnswerSet, type PageRef, type PlainQuestion, type StructuredQuestion } from "./lib/answer-set.ts";
import { startAnswerWeb } from "./lib/answer-web.ts";
import { startSubject, type Subject } from "./lib/answer-subject.ts";
import { judgePlain, judgeStructured, type Outcome, type PlainOutcome, type StructuredOutcome } from "./lib/answer-outcomes.ts";
import { printFailures, printFigures, printVerbose } from "./lib/answer-tables.ts";
import { writeResults } from "./lib/report.ts";

const { values: cli } = parseArgs({
  options: { base: { type: "string" }, split: { type: "string", default: "all" }, verbose: { type: "boolean", default: false } },
});
const split = cli.split as "dev" | "holdout" | "all";
if (!["dev", "holdout", "all"].includes(split)) {
  console.error(`--split must be dev, holdout or all, not ${split}`);
  process.exit(1);
}
const DUMP = process.env.BENCH_DUMP || undefined;
const LIMIT = Number(process.env.BENCH_QUESTIONS ?? 0) || undefined;
const WARMUP_PROMPT = "What is the tallest building in the world?";

const set = loadAnswerSet(process.env.ANSWER_SET_DIR || undefined);
const problems = await checkAnswerSet(set);
if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(`the development set has ${problems.length} problem(s): not measured`);
  process.exit(1);
}
// BENCH_IDS=sa-001,pb-004 asks only those questions (for looking into a failure).
const IDS = process.env.BENCH_IDS ? new Set(process.env.BENCH_IDS.split(",")) : null;
const pick = <T extends { split: string; id: string }>(qs: T[]) =>
  qs.filter((q) => (split === "all" || q.split === split) && (!IDS || IDS.has(q.id))).slice(0, LIMIT);
const plain = pick(set.plain);
const structured = pick(set.structured);
if (plain.length + structured.length === 0) {
  console.error("no questions to ask");
  process.exit(1);
}

const started = performance.now();
const web = await startAnswerWeb((done, total) => console.error(`indexed ${done}/${total} pages`));
const indexedAt = performance.now();
const subjects: Subject[] = [];
try {
  subjects.push(await startSubject(fileURLToPath(new URL("..", import.meta.url)), cli.base ? "after" : "current", web));
  if (cli.base) subjects.push(await startSubject(cli.base, "before", web));
  for (const subject of subjects) {
    const reply = await subject.search({ prompt: WARMUP_PROMPT });
    if (reply.status !== 200) throw new Error(`${subject.label}: the warm-up search answered ${reply.status} ${reply.error ?? ""}`);
    if (reply.model !== "extractive")
      throw new Error(`${subject.label}: a model answered (${reply.model}); this bench measures answers without one`);
  }

  const outcomes = new Map(subjects.map((s) => [s.label, { plain: [] as PlainOutcome[], structured: [] as StructuredOutcome[] }]));
  const same = (a: PageRef | undefined, b: PageRef) => a?.set === b.set && a.file === b.file;
  const asked: (PlainQuestion | StructuredQuestion)[] = [...plain, ...structured];
  for (const [i, q] of asked.entries()) {
    // Alternating which app goes first, so neither always meets a page cache the other warmed.
    for (const subject of i % 2 === 0 ? subjects : [...subjects].reverse()) {
      const mark = web.searches();
      const isPlain = "kind" in q;
      const reply = await subject.search(isPlain ? { prompt: q.prompt } : { prompt: q.prompt, output_format: q.output_format });
      const at = reply.context.findIndex((c) => same(web.pageAt(c.metadata.url), q.page));
      const seen = {
        found: at >= 0,
        contextRank: at >= 0 ? at + 1 : null,
        contextSize: reply.context.length,
        offered: web.hitsSince(mark, subject.resultsPerQuery).has(web.servedUrl(q.page)),
      };
      // BENCH_DUMP=dir keeps what the first app was asked and the context it answered from, one file per question.
      if (DUMP && subject === subjects[0]) await Bun.write(`${DUMP}/${q.id}.json`, JSON.stringify({ question: q, reply }, null, 1));
      const into = outcomes.get(subject.label)!;
      if (isPlain) into.plain.push(judgePlain(q, reply, seen));
      else into.structured.push(judgeStructured(q as StructuredQuestion, reply, seen));
    }
    if ((i + 1) % 20 === 0 || i + 1 === asked.length) console.error(`${i + 1}/${asked.length} questions`);
  }
  const finished = performance.now();

  const labels = subjects.map((s) => s.label);
  const splits = split === "all" ? (["dev", "holdout", "all"] as const) : ([split] as const);
  const inSplit = <T extends Outcome>(list: T[], s: string) => list.filter((o) => s === "all" || o.split === s);
  const figuresBy = printFigures(labels, splits, (label, s) => {
    const o = outcomes.get(label)!;
    return [inSplit(o.plain, s), inSplit(o.structured, s)];
  });
  const failures = printFailures(labels, (label) => outcomes.get(label)!);
  if (cli.verbose) printVerbose(labels, asked, (label) => outcomes.get(label)!);

  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  console.log(
    `\n${asked.length} questions on ${labels.length} app(s) in ${seconds(finished - started)} s ` +
      `(indexing ${web.pages.length} pages ${seconds(indexedAt - started)} s).`,
  );
  const path = writeResults("answers", {
    split,
    limit: LIMIT ?? null,
    base: cli.base ?? null,
    seconds: seconds(finished - started),
    figures: figuresBy,
    failures,
    questions: Object.fromEntries(outcomes),
  });
  console.log(`wrote ${path}`);
} finally {
  for (const subject of subjects) await subject.stop();
  web.stop();
}
process.exit(0);
