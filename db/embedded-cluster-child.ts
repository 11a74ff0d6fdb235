/**
 * `bun db/embedded-cluster-child.ts <pgdata> [<template dir>]`: makes the embedded database's
 * cluster for an empty folder, migrated, then exits (db/embedded-cluster.ts
 * runs it). A process of its own because making a cluster costs WASM memory a
 * process never gets back (initdb: 600 MB; loading the shipped template:
 * 250): the server then opens a ready folder. Says what went wrong on stderr
 * and exits 1.
 */
import { readFileSync } from "node:fs";
import { rename, rm, rmdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { readTemplate } from "./cluster-template.ts";
import { PGLITE_OPTIONS } from "./pglite-options.ts";
import { migrationsFolder } from "./migrate.ts";
import { migrateJobs } from "./jobs.ts";

/**
 * Loaded from the shipped template when it fits this PGlite (db/cluster-template.ts), else made by initdb.
 * Written and migrated beside the folder and renamed into place, so an interrupted first start leaves no
 * half-made cluster behind. Prints where the cluster came from (`template` or `initdb`) and this process's peak.
 */
async function createCluster(pgdata: string, templateDir: string | undefined): Promise<void> {
  await rmdir(pgdata).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return;
    if (error.code === "ENOTEMPTY") throw new Error(`${pgdata} holds files but no database (no PG_VERSION); move it away to start afresh`);
    throw error;
  });
  const template = await readTemplate(templateDir);
  const cluster = template ?? (await initdb());
  const staging = `${pgdata}.new`;
  await rm(staging, { recursive: true, force: true });
  const writer = new PGlite(staging, { ...PGLITE_OPTIONS, loadDataDir: cluster });
  await writer.waitReady;
  await migrate(drizzle({ client: writer }), { migrationsFolder });
  await migrateJobs({ kind: "pglite", client: writer });
  await writer.close();
  // A server stopped while this ran may have been started again, with a child of its own on the same folder.
  if (process.ppid !== parent) throw new Error("the process that asked for this database is gone; its cluster is left unfinished");
  await rename(staging, pgdata);
  process.stdout.write(`${JSON.stringify({ source: template ? "template" : "initdb", peakRssBytes: peakRssBytes() })}\n`);
}

/**
 * PGlite's own initdb on a folder keeps two Postgres instances, a snapshot of one's heap and a tar of the new
 * cluster alive at once; in memory, initdb writes straight into the instance's files (no tar), and the scratch
 * instance is closed and collected before the cluster is written to disk (measured: a peak of 630 MB instead of
 * 720, 1 GB without PGLITE_OPTIONS' settings).
 */
async function initdb(): Promise<Blob> {
  const scratch = new PGlite(PGLITE_OPTIONS);
  await scratch.waitReady;
  collectClosedInstances(); // PGlite's own initdb instance, closed by now, before the tar is made
  const cluster = await scratch.dumpDataDir("none");
  await scratch.close();
  collectClosedInstances();
  return cluster;
}

/**
 * This process's peak resident memory since it started (VmHWM; Linux only). Not the rusage its parent gets at exit:
 * a child spawned with vfork counts its parent's resident memory at the spawn as its own peak.
 */
function peakRssBytes(): number | null {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * A closed PGlite's WASM heap (128 MB or more) is returned only when the garbage collector finalizes it:
 * the first full collection finds the instance unreachable, the second releases its memory.
 */
function collectClosedInstances(): void {
  Bun.gc(true);
  Bun.gc(true);
}

const parent = process.ppid;
const pgdata = process.argv[2];
if (!pgdata) {
  process.stderr.write("usage: bun db/embedded-cluster-child.ts <pgdata> [<template dir>]\n");
  process.exit(1);
}
try {
  await createCluster(pgdata, process.argv[3]);
  process.exit(0);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
