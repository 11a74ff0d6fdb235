/**
 * `npm run db:template`: makes db/cluster-template/ (see db/cluster-template.ts)
 * with the installed PGlite and PGLITE_OPTIONS: initdb in memory, the cluster
 * as a tar, compressed.
 */
import { PGlite } from "@electric-sql/pglite";
import { expectedManifest, TEMPLATE_DIR, writeTemplate } from "./cluster-template.ts";
import { PGLITE_OPTIONS } from "./pglite-options.ts";

const pg = new PGlite(PGLITE_OPTIONS);
await pg.waitReady;
const cluster = await pg.dumpDataDir("none");
await pg.close();
const manifest = await expectedManifest();
const bytes = await writeTemplate(cluster, manifest);
console.log(`${TEMPLATE_DIR}: ${(bytes / 2 ** 20).toFixed(1)} MB (PGlite ${manifest.pglite})`);
