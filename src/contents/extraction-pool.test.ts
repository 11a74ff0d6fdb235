import { describe, expect, test } from "bun:test";
import { ServiceError } from "../errors.ts";
import { createLogger, type Logger } from "../log.ts";
import { ExtractionPool } from "./extraction-pool.ts";

const silent = createLogger({ level: "silent" });
const page = (words: string) => new TextEncoder().encode(`<html><body><article><h1>A page</h1><p>${words}</p></article></body></html>`);
const extract = (pool: ExtractionPool, words: string) =>
  pool.extract({ body: page(words), contentType: "text/html", url: "https://example.test/" });

/** A pool of `workers` (idle for a minute before they stop, unless `idleMs` says otherwise), closed when `use` is done. */
async function withPool(
  { log = silent, ...settings }: { workers: number; idleMs?: number; log?: Logger },
  use: (pool: ExtractionPool) => Promise<void>,
): Promise<void> {
  const pool = new ExtractionPool({ timeoutMs: 10_000, idleMs: 60_000, ...settings }, log);
  try {
    await use(pool);
  } finally {
    await pool.close();
  }
}

test("an extractor bug is the caller's extraction_failed and a logged error, never silent", async () => {
  const lines: string[] = [];
  await withPool({ workers: 1, log: createLogger({ level: "info", sink: (line) => lines.push(line) }) }, async (pool) => {
    const html = new TextEncoder().encode(
      '<html><body><article><p>Enough words to be an article.</p><a href="/x">x</a></article></body></html>',
    );
    // A content type that is not a string (a caller bug the types forbid) makes the extractor throw a TypeError.
    const failure = await pool
      .extract({ body: html, contentType: 5 as unknown as string, url: "https://example.test/" })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).code).toBe("extraction_failed");
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "extraction failed unexpectedly");
    expect(logged?.level).toBe("error");
    expect(logged?.error?.name).toBeString();
  });
});

describe("workers start with the pages that need them and stop when idle", () => {
  test("no worker runs before the first page; the first page starts one and is extracted", async () => {
    await withPool({ workers: 4 }, async (pool) => {
      expect(pool.workers).toBe(0);
      const document = await extract(pool, "The first page arrives at an idle pool.");
      expect(document.text).toContain("The first page arrives at an idle pool.");
      expect(pool.workers).toBe(1);
    });
  });

  test("a burst starts one worker per waiting page, never more than the pool's size", async () => {
    await withPool({ workers: 2 }, async (pool) => {
      const pages = ["one", "two", "three", "four", "five"].map((n) => extract(pool, `Page number ${n} of the burst.`));
      expect(pool.workers).toBe(2);
      const documents = await Promise.all(pages);
      expect(documents.map((d) => d.text.match(/number (\w+)/)?.[1])).toEqual(["one", "two", "three", "four", "five"]);
      expect(pool.workers).toBe(2);
    });
  });

  test("a worker idle for idleMs stops, and the next page starts a fresh one", async () => {
    await withPool({ workers: 1, idleMs: 50 }, async (pool) => {
      await extract(pool, "Before the pool goes idle.");
      expect(pool.workers).toBe(1);
      const until = performance.now() + 5_000;
      while (pool.workers > 0 && performance.now() < until) await Bun.sleep(10);
      expect(pool.workers).toBe(0);
      const document = await extract(pool, "After the pool was idle.");
      expect(document.text).toContain("After the pool was idle.");
      expect(pool.workers).toBe(1);
    });
  });

  test("close stops the workers, and later pages are refused", async () => {
    const pool = new ExtractionPool({ workers: 2, timeoutMs: 10_000, idleMs: 60_000 }, silent);
    await extract(pool, "A page before the pool closes.");
    await pool.close();
    expect(pool.workers).toBe(0);
    const refused = await extract(pool, "A page after.").catch((error: unknown) => error);
    expect((refused as ServiceError).code).toBe("service_unavailable");
  });
});
