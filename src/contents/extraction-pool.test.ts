import { expect, test } from "bun:test";
import { ServiceError } from "../errors.ts";
import { createLogger } from "../log.ts";
import { ExtractionPool } from "./extraction-pool.ts";

test("an extractor bug is the caller's extraction_failed and a logged error, never silent", async () => {
  const lines: string[] = [];
  const pool = new ExtractionPool({ size: 1, timeoutMs: 10_000 }, createLogger({ level: "info", sink: (line) => lines.push(line) }));
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
