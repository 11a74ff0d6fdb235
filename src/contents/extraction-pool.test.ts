import { describe, expect, test } from "bun:test";
import { ServiceError } from "../errors.ts";
import { createLogger } from "../log.ts";
import { ExtractionPool } from "./extraction-pool.ts";

const silent = createLogger({ level: "silent" });
const page = (words: string) => new TextEncoder().encode(`<html><body><article><h1>A page</h1><p>${words}</p></article></body></html>`);
const extract = (pool: ExtractionPool, words: string) =>
  pool.extract({ body: page(words), contentType: "text/html", url: "https://example.test/" });

test("an extractor bug is the caller's extraction_failed and a logged error, never silent", async () => {
  const lines: string[] = [];
  const pool = new ExtractionPool(
    { workers: 1, timeoutMs: 10_000, idleMs: 60_000 },
    createLogger({ level: "info", sink: (line) => lines.push(line) }),
  );
  try {
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
  } finally {
    await pool.close();
  }
});

describe("workers start with the pages that need them and stop when idle", () => {
  test("no worker runs before the first page; the first page starts one and is extracted", async () => {
    const pool = new ExtractionPool({ workers: 4, timeoutMs: 10_000, idleMs: 60_000 }, silent);
    try {
      expect(pool.workers).toBe(0);
      const document = await extract(pool, "The first page arrives at an idle pool.");
      expect(document.text).toContain("The first page arrives at an idle pool.");
      expect(pool.workers).toBe(1);
    } finally {
      await pool.close();
    }
  });

  test("a burst starts one worker per waiting page, never more than the pool's size", async () => {
    const pool = new ExtractionPool({ workers: 2, timeoutMs: 10_000, idleMs: 60_000 }, silent);
    try {
      const pages = ["one", "two", "three", "four", "five"].map((n) => extract(pool, `Page number ${n} of the burst.`));
      expect(pool.workers).toBe(2);
      const documents = await Promise.all(pages);
      expect(documents.map((d) => d.text.match(/number (\w+)/)?.[1])).toEqual(["one", "two", "three", "four", "five"]);
      expect(pool.workers).toBe(2);
    } finally {
      await pool.close();
    }
  });

  test("a worker idle for idleMs stops, and the next page starts a fresh one", async () => {
    const pool = new ExtractionPool({ workers: 1, timeoutMs: 10_000, idleMs: 50 }, silent);
    try {
      await extract(pool, "Before the pool goes idle.");
      expect(pool.workers).toBe(1);
      const until = performance.now() + 5_000;
      while (pool.workers > 0 && performance.now() < until) await Bun.sleep(10);
      expect(pool.workers).toBe(0);
      const document = await extract(pool, "After the pool was idle.");
      expect(document.text).toContain("After the pool was idle.");
      expect(pool.workers).toBe(1);
    } finally {
      await pool.close();
    }
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
