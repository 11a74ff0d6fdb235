/**
 * A new embedded cluster, made once and shipped (db/cluster-template/): the
 * first start loads it instead of running initdb, whose 600 MB would be the
 * machine's peak; loading needs some 250 MB. A cluster belongs to the Postgres
 * build that made it, so the template says which PGlite and which initdb
 * arguments made it, and is used only when both match what is installed;
 * otherwise the first start runs initdb as before. `npm run db:template`
 * makes it again (after upgrading PGlite, say); a test fails until then.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGLITE_OPTIONS } from "./pglite-options.ts";

export const TEMPLATE_DIR = fileURLToPath(new URL("./cluster-template/", import.meta.url));
const ARCHIVE = "cluster.tar.zst";
const MANIFEST = "manifest.json";

export interface TemplateManifest {
  pglite: string;
  initdbArgs: string[];
}

/** What a template must have been made with to be used here. */
export async function expectedManifest(): Promise<TemplateManifest> {
  const pglite = JSON.parse(
    await readFile(fileURLToPath(new URL("../package.json", import.meta.resolve("@electric-sql/pglite"))), "utf8"),
  ) as { version: string };
  return { pglite: pglite.version, initdbArgs: [...(PGLITE_OPTIONS.initDbStartParams ?? [])] };
}

/** The template's cluster as a tar, or undefined when there is none or it was made by another PGlite or with other arguments. */
export async function readTemplate(dir = TEMPLATE_DIR): Promise<Blob | undefined> {
  const shipped = await readFile(join(dir, MANIFEST), "utf8").then(
    (text) => JSON.parse(text) as TemplateManifest,
    () => undefined,
  );
  if (!shipped || JSON.stringify(shipped) !== JSON.stringify(await expectedManifest())) return undefined;
  return new Blob([Bun.zstdDecompressSync(await readFile(join(dir, ARCHIVE))) as Uint8Array<ArrayBuffer>]);
}

/** Writes a template of `cluster` (a tar) made with `manifest` into `dir`; answers the archive's size in bytes. */
export async function writeTemplate(cluster: Blob, manifest: TemplateManifest, dir = TEMPLATE_DIR): Promise<number> {
  await mkdir(dir, { recursive: true });
  const archive = Bun.zstdCompressSync(await cluster.bytes(), { level: 19 });
  await writeFile(join(dir, ARCHIVE), archive);
  await writeFile(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return archive.length;
}
