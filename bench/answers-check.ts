/**
 * bun bench/answers-check.ts [file.json ...]
 *
 * Checks the answer bench's development set (or the named files of it):
 * every expected answer must be in its page's text as our extractor reads it.
 * Prints each problem and the counts; exits 1 if there is any problem.
 */
import { basename, resolve } from "node:path";
import { mkdtempSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { checkAnswerSet, loadAnswerSet } from "./lib/answer-set.ts";

const files = process.argv.slice(2);
let dir: string | undefined;
if (files.length) {
  dir = mkdtempSync(resolve(tmpdir(), "answer-set-"));
  for (const f of files) copyFileSync(resolve(f), resolve(dir, basename(f)));
}
const set = loadAnswerSet(dir);
const problems = await checkAnswerSet(set);
for (const p of problems) console.log(p);
console.log(`${set.plain.length} plain, ${set.structured.length} structured questions; ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
