/**
 * The reference pages written by `npm run docs` are what the code says today:
 * a command added to the table or a variable added to EnvSchema fails here
 * until the page is written again.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { referencePages } from "../../src/cli/reference-pages.ts";

const root = new URL("../../", import.meta.url);

describe("the generated reference pages", () => {
  for (const page of referencePages())
    test(`${page.path} is what npm run docs writes`, () => {
      const written = readFileSync(new URL(page.path, root), "utf8");
      // The message, not a diff of two long pages, is what tells a reader what to do.
      expect(written === page.text ? "current" : `out of date: run \`npm run docs\` and commit ${page.path}`).toBe("current");
    });
});
