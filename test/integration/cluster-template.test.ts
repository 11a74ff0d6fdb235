/**
 * The shipped cluster template (db/cluster-template/) fits the installed
 * PGlite and the initdb arguments in use; after upgrading PGlite or changing
 * PGLITE_OPTIONS, `npm run db:template` makes it again. Without it every
 * first start would fall back to initdb's 600 MB.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expectedManifest, readTemplate, TEMPLATE_DIR } from "../../db/cluster-template.ts";

describe("the shipped cluster template", () => {
  test("was made by the installed PGlite with the initdb arguments in use (else: npm run db:template)", async () => {
    expect(JSON.parse(readFileSync(join(TEMPLATE_DIR, "manifest.json"), "utf8"))).toEqual(await expectedManifest());
    const cluster = await readTemplate();
    expect(cluster).toBeInstanceOf(Blob);
    // A tar of a whole cluster, tens of MB, with its PG_VERSION and pg_control.
    expect(cluster!.size).toBeGreaterThan(10 * 2 ** 20);
    const tar = new TextDecoder("latin1").decode(await cluster!.arrayBuffer());
    expect(["/PG_VERSION\0", "/global/pg_control\0"].filter((entry) => tar.includes(entry))).toEqual([
      "/PG_VERSION\0",
      "/global/pg_control\0",
    ]);
  });
});
