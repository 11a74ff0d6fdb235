/**
 * The embedded database's folder (DATA_DIR/pgdata): a new one is made in
 * memory and renamed into place, with the memory settings of db/client.ts,
 * and a folder that holds something else is refused rather than written over.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "embedded-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("a data folder without a database", () => {
  test("gets a cluster in pgdata with 16 MB of shared buffers and 1 MB WAL segments; what an interrupted start left beside it is gone", async () => {
    const dir = dataDir();
    mkdirSync(join(dir, "pgdata.new"));
    writeFileSync(join(dir, "pgdata.new", "PG_VERSION"), "half-made\n");
    const handle = await openDatabase({ kind: "pglite", dataDir: dir, role: "test" });
    try {
      const show = async (name: string) =>
        ((await handle.db.execute(sql.raw(`show ${name}`))) as unknown as { rows: Record<string, string>[] }).rows[0]![name];
      expect(await show("shared_buffers")).toBe("16MB");
      expect(await show("wal_segment_size")).toBe("1MB");
      expect(readFileSync(join(dir, "pgdata", "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
      expect(existsSync(join(dir, "pgdata.new"))).toBe(false);
    } finally {
      await handle.close();
    }
  });
});

describe("a pgdata folder that holds files but no database", () => {
  test("is refused with what to do, its files kept and the folder's lock released", async () => {
    const dir = dataDir();
    mkdirSync(join(dir, "pgdata"));
    writeFileSync(join(dir, "pgdata", "notes.txt"), "someone's file");
    for (let attempt = 0; attempt < 2; attempt++) {
      const failure = await openDatabase({ kind: "pglite", dataDir: dir, role: "test" }).catch((error: unknown) => error);
      expect(String((failure as Error).message)).toContain("holds files but no database");
    }
    expect(readFileSync(join(dir, "pgdata", "notes.txt"), "utf8")).toBe("someone's file");
    expect(existsSync(join(dir, "embedded.lock"))).toBe(false);
  });
});
