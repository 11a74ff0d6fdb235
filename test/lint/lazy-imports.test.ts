/**
 * What the server imports at start leaves out the heavy libraries it loads on
 * first use: the tokenizer's tables (some 60 MB), the AI SDK (20 MB, only with
 * a configured model) and the extractor's libraries (they live in the
 * extraction workers). One static import would bring them back unnoticed;
 * this reads the module registry of a fresh process that imports what
 * src/main.ts imports.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { root } from "../helpers/process.ts";

const HEAVY = [
  "gpt-tokenizer",
  "ai",
  "@ai-sdk/anthropic",
  "@ai-sdk/openai-compatible",
  "linkedom",
  "turndown",
  "unpdf",
  "@mozilla/readability",
  // Loaded only with METRICS_PORT set (src/observe/metrics.ts).
  "prom-client",
];

/** The heavy packages loaded after `script` runs in a fresh Bun process at the project root. */
async function loadedAfter(script: string): Promise<string[]> {
  const probe = `${script}
const heavy = ${JSON.stringify(HEAVY)};
const loaded = Object.keys(require.cache).map((path) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(path)?.[1]).filter((name) => heavy.includes(name));
console.log(JSON.stringify([...new Set(loaded)].sort()));`;
  const child = Bun.spawn([process.execPath, "-e", probe], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

/** Every module src/main.ts imports, imported (main.ts itself would start a server). */
const MAIN = join(root, "src/main.ts");
const STARTUP = [...readFileSync(MAIN, "utf8").matchAll(/^import .* from "(\.[^"]+)";$/gm)]
  .map(([, spec]) => `await import(${JSON.stringify(join(dirname(MAIN), spec!))});`)
  .join("\n");

describe("the server starts without its heavy libraries", () => {
  test("what src/main.ts imports loads none of them", async () => {
    expect(STARTUP.split("\n").length).toBeGreaterThan(10);
    expect(await loadedAfter(STARTUP)).toEqual([]);
  });

  test("the first token count loads the tokenizer (so the check above can see one)", async () => {
    expect(await loadedAfter(`${STARTUP}\n(await import("./src/tokens.ts")).countTokens("one two three");`)).toEqual(["gpt-tokenizer"]);
  });
});
