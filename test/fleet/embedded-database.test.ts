/**
 * The embedded default is one process's database (issue 25, item 6): a
 * second server started on it (`npm start` with no DATABASE_URL, the same
 * DATA_DIR), as an operator scaling out without Postgres would, stops at
 * start with exit code 2 and says why and what to do instead, and the first
 * one goes on serving.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../helpers/process.ts";

const dir = mkdtempSync(join(tmpdir(), "fleet-embedded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a second server on the embedded database is refused with the reason and the way to a fleet; the first serves on", async () => {
  const env = { DATA_DIR: dir, LOG_LEVEL: "info" };
  const first = await startServer(env);
  try {
    const refusal = await startServer(env).then(
      async (second) => {
        await second.stop();
        return "a second server started";
      },
      // The message is wrapped for a terminal: read as one line.
      (error: Error) => error.message.replace(/\s+/g, " "),
    );
    expect(refusal).toContain("server exited with 2");
    expect(refusal).toContain(`cannot start: the embedded database in ${dir} is held by process ${first.child.pid} (server).`);
    expect(refusal).toContain("two processes writing its folder would corrupt it");
    expect(refusal).toContain("to run several instances, set DATABASE_URL to a Postgres they all use");
    expect(refusal).toContain("docs/operate/deploying.md");
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
  } finally {
    expect(await first.stop()).toBe(0);
  }
});
