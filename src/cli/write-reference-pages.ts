/** `npm run docs`: writes the CLI and configuration reference pages from the code they describe. */
import { referencePages } from "./reference-pages.ts";

const root = new URL("../../", import.meta.url);
for (const page of referencePages()) {
  await Bun.write(new URL(page.path, root), page.text);
  process.stdout.write(`wrote ${page.path}\n`);
}
