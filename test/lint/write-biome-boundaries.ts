/**
 * Writes the import boundaries and the fetch chokepoint of
 * test/lint/boundaries.ts as test/lint/biome-boundaries.jsonc, the overrides
 * biome.jsonc extends, for `npm run lint:boundaries`. Run it after editing the
 * table; test/lint/boundaries.test.ts fails until you do.
 */
import { join } from "node:path";
import { root } from "../helpers/process.ts";
import { boundariesConfig, FILE } from "./biome-boundaries.ts";

const file = Bun.file(join(root, FILE));
const text = boundariesConfig();
const changed = !(await file.exists()) || (await file.text()) !== text;
if (changed) await Bun.write(file, text);
console.log(changed ? `wrote ${FILE}` : `${FILE} was up to date`);
