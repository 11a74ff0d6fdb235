/**
 * The documentation stands on its own in a clone: every relative link in
 * README.md and docs/ points inside the repository. (`npm run lint` checks
 * that each one resolves, with its heading; a link out of the repository,
 * such as into the team's shared folder, resolves on a machine that has the
 * folder and nowhere else, so it is refused here.)
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pages = ["README.md", ...new Glob("docs/**/*.md").scanSync(root)];
/** Inline links and images `](target)` and reference definitions `[name]: target`, outside code. */
const LINK = /\]\(\s*<?([^)\s>]+)>?[^)]*\)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm;
const FENCE = /^(```|~~~)[\s\S]*?^\1/gm;
const CODE_SPAN = /`[^`\n]*`/g;

function relativeTargets(markdown: string): string[] {
  const prose = markdown.replace(FENCE, "").replace(CODE_SPAN, "");
  return [...prose.matchAll(LINK)]
    .map((m) => (m[1] ?? m[2])!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.split("#")[0]!);
}

describe("the documentation's links", () => {
  test("README.md and docs/ have pages to check", () => {
    expect(pages.length).toBeGreaterThan(10);
  });

  for (const page of pages)
    test(`${page} links only inside the repository`, () => {
      const outside = relativeTargets(readFileSync(join(root, page), "utf8")).filter((target) =>
        relative(root, resolve(root, dirname(page), target)).startsWith(".."),
      );
      expect(outside).toEqual([]);
    });
});
