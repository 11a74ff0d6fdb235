/**
 * The embedded database's folder (DATA_DIR/pgdata): a new one is made and
 * migrated by a child process (db/embedded-cluster.ts), from the shipped
 * template (initdb when it does not fit this PGlite) and renamed into place,
 * with the memory settings of db/pglite-options.ts; the server that asked
 * never holds the memory that cost; a child that fails or is killed
 * fails the start with what it said; and a folder that holds something else
 * is refused rather than written over.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";
import { TEMPLATE_DIR } from "../../db/cluster-template.ts";
import { type ClusterMade, createClusterInChild } from "../../db/embedded-cluster.ts";
import { captureOutput, spawnServer, startServer, waitForOutput } from "../helpers/process.ts";

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "embedded-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const MB = 2 ** 20;

/** A process's peak resident memory (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) * 1024;
}

/** The processes `pid` started that are still running (any of its threads may have started them). */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
}

describe("a data folder without a database", () => {
  test("gets a migrated cluster in pgdata from a child process, with 16 MB of shared buffers and 1 MB WAL segments; what an interrupted start left beside it is gone", async () => {
    const dir = dataDir();
    mkdirSync(join(dir, "pgdata.new"));
    writeFileSync(join(dir, "pgdata.new", "PG_VERSION"), "half-made\n");
    let made: ClusterMade | undefined;
    // Resident here while the child is spawned: the child's peak must be its own, not this process's.
    const ballast = new Uint8Array(500 * MB).fill(1);
    const handle = await openDatabase({ kind: "pglite", dataDir: dir, role: "test", created: (m) => (made = m) });
    expect(ballast[ballast.length - 1]).toBe(1);
    try {
      const show = async (name: string) =>
        ((await handle.db.execute(sql.raw(`show ${name}`))) as unknown as { rows: Record<string, string>[] }).rows[0]![name];
      expect(await show("shared_buffers")).toBe("16MB");
      expect(await show("wal_segment_size")).toBe("1MB");
      // Migrated by the child: nobody here ran the migrations.
      const tables = (await handle.db.execute(
        sql.raw("select count(*)::int as n from pg_tables where tablename = 'accounts'"),
      )) as unknown as {
        rows: { n: number }[];
      };
      expect(tables.rows[0]!.n).toBe(1);
      // Loaded from the shipped template: the child's peak is a loaded cluster's, not initdb's 600 MB.
      expect(made!.source).toBe("template");
      expect(made!.childPeakRssBytes).toBeGreaterThan(100 * MB);
      expect(made!.childPeakRssBytes).toBeLessThan(400 * MB);
      expect(readFileSync(join(dir, "pgdata", "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
      expect(existsSync(join(dir, "pgdata.new"))).toBe(false);
    } finally {
      await handle.close();
    }
    // A second open finds the cluster: no child, nothing created.
    made = undefined;
    const again = await openDatabase({ kind: "pglite", dataDir: dir, role: "test", created: (m) => (made = m) });
    await again.close();
    expect(made).toBeUndefined();
  });
});

describe("a template made by another PGlite", () => {
  test("is not loaded: the child runs initdb instead, at initdb's peak", async () => {
    const dir = dataDir();
    const template = join(dir, "template");
    cpSync(TEMPLATE_DIR, template, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(template, "manifest.json"), "utf8"));
    writeFileSync(join(template, "manifest.json"), JSON.stringify({ ...manifest, pglite: "0.0.1" }));
    const made = await createClusterInChild(join(dir, "pgdata"), template);
    expect(made.source).toBe("initdb");
    expect(made.childPeakRssBytes).toBeGreaterThan(450 * MB);
    expect(readFileSync(join(dir, "pgdata", "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
  }, 180_000);
});

describe("the server's first start on an empty DATA_DIR", () => {
  test("serves from a cluster a child made, and its own peak stays far below initdb's", async () => {
    const dir = dataDir();
    const server = await startServer({ DATA_DIR: dir, LOG_LEVEL: "info" }, 120_000);
    try {
      const [, key] = await waitForOutput(server, /export CRITIQUE_API_KEY=(\S+)/, 30_000);
      expect((await fetch(`${server.url}/v1/account`, { headers: { "X-API-Key": key! } })).status).toBe(200);
      const [, childPeakMb] = /"msg":"embedded database created","from":"template","ms":\d+,"child_peak_rss_mb":(\d+)/.exec(
        server.output(),
      )!;
      expect(Number(childPeakMb)).toBeLessThan(400);
      // initdb in this process would have left a peak above 600 MB; a template loaded here, near 400.
      expect(peakRss(server.child.pid)).toBeLessThan(400 * MB);
      expect(readFileSync(join(dir, "pgdata", "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 180_000);

  test("fails with exit code 2 and says so when the child is killed (as the out-of-memory killer would), leaving no cluster", async () => {
    const dir = dataDir();
    const child = spawnServer({ DATA_DIR: dir, LOG_LEVEL: "info" });
    const output = captureOutput(child);
    let killed: number | undefined;
    for (const deadline = Date.now() + 30_000; killed === undefined && child.exitCode === null && Date.now() < deadline; ) {
      killed = childrenOf(child.pid)[0];
      if (killed === undefined) await Bun.sleep(10);
    }
    expect(killed).toBeNumber();
    process.kill(killed!, "SIGKILL");
    expect(await child.exited).toBe(2);
    expect(output()).toContain(
      `cannot start: creating the embedded database in ${dir}/pgdata failed: the process making it was killed (SIGKILL`,
    );
    expect(existsSync(join(dir, "pgdata"))).toBe(false);
    expect(existsSync(join(dir, "embedded.lock"))).toBe(false);
  });
});

describe("a pgdata folder that holds files but no database", () => {
  test("is refused by the child with what to do, quoted in the error; its files kept and the folder's lock released", async () => {
    const dir = dataDir();
    mkdirSync(join(dir, "pgdata"));
    writeFileSync(join(dir, "pgdata", "notes.txt"), "someone's file");
    for (let attempt = 0; attempt < 2; attempt++) {
      const failure = await openDatabase({ kind: "pglite", dataDir: dir, role: "test" }).catch((error: unknown) => error);
      expect(String((failure as Error).message)).toBe(
        `creating the embedded database in ${dir}/pgdata failed: the process making it exited with code 1:\n${dir}/pgdata holds files but no database (no PG_VERSION); move it away to start afresh`,
      );
    }
    expect(readFileSync(join(dir, "pgdata", "notes.txt"), "utf8")).toBe("someone's file");
    expect(existsSync(join(dir, "embedded.lock"))).toBe(false);
  });
});
