/**
 * The operator's `tasks list` and `tasks show`, run as the real CLI process
 * over tasks the real app ran against the loopback web. On Postgres the CLI
 * works beside the running instance; on PGlite only one process may open a
 * data folder, so the tasks' rows (and their accounts') are copied into one
 * the CLI opens.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inArray } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";
import { migrateDatabase } from "../../db/migrate.ts";
import { accounts, tasks } from "../../db/schema.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { backendName, TEST_DATABASE_URL } from "../helpers/env.ts";
import { runCli } from "../helpers/process.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

const QUESTION = "What did the council decide about the river bridge?";
const dir = mkdtempSync(join(tmpdir(), "tasks-cli-"));
let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let env: Record<string, string>;
let mine: { accountId: string; keyId: string; apiKey: string };
let theirs: { accountId: string; apiKey: string };
/** Oldest first: mine succeeded, mine canceled, theirs succeeded, mine failed (past the deadline). */
let succeeded: any;
let canceled: any;
let other: any;
let failed: any;

const cli = (...args: string[]) => runCli(args, env);
const headers = (key: string) => ({ "X-API-Key": key, "content-type": "application/json" });

/** The task once it has finished: its event stream read to its end, then the task. */
async function settled(id: string, key: string): Promise<any> {
  await (await app.fetch(`/v1/tasks/${id}/events`, { headers: headers(key) })).text();
  return jsonOf(app.fetch(`/v1/tasks/${id}`, { headers: headers(key) }));
}

const start = (body: unknown, key: string) =>
  jsonOf(app.fetch("/v1/tasks", { method: "POST", headers: headers(key), body: JSON.stringify(body) }));

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  // Providers slow over "tunnel" outlast the 8 s deadline: that task fails with deadline_exceeded. The others take
  // well under a second, once warm.
  world.slowOver("tunnel", 20_000);
  app = await startTestApp(database, {
    env: world.env({ SEARCH_DEADLINE_MS: "8000", PROVIDER_TIMEOUT_MS: "30000" }),
    resolver: world.resolver,
  });
  mine = await app.account({ name: "mine", limit: 100_000 });
  theirs = await app.account({ name: "theirs", limit: 100_000 });
  // A first search warms what a cold process loads on its first run (a task is held to the same deadline).
  await app.fetch("/v1/search", { method: "POST", headers: headers(mine.apiKey), body: JSON.stringify({ prompt: QUESTION }) });
  succeeded = await settled((await start({ prompt: QUESTION, metadata: { row: 7 } }, mine.apiKey)).id, mine.apiKey);
  // Over "tunnel" its providers are slow, so it is still running when canceled: a quick one could finish first (a 409).
  const toCancel = await start({ prompt: "How long is the tunnel under the river?" }, mine.apiKey);
  canceled = await jsonOf(app.fetch(`/v1/tasks/${toCancel.id}/cancel`, { method: "POST", headers: headers(mine.apiKey) }));
  other = await settled((await start({ prompt: QUESTION }, theirs.apiKey)).id, theirs.apiKey);
  failed = await settled((await start({ prompt: "Would a tunnel have been cheaper?" }, mine.apiKey)).id, mine.apiKey);
  expect([succeeded.status, canceled.status, other.status, failed.status]).toEqual(["succeeded", "canceled", "succeeded", "failed"]);
  if (TEST_DATABASE_URL) env = { DATABASE_URL: database.url!, LOG_LEVEL: "warn" };
  else {
    const ids = [mine.accountId, theirs.accountId];
    const handle = await openDatabase({ kind: "pglite", dataDir: dir, role: "test" });
    await migrateDatabase(handle, undefined);
    await handle.db.insert(accounts).values(await app.db.select().from(accounts).where(inArray(accounts.id, ids)));
    await handle.db.insert(tasks).values(await app.db.select().from(tasks).where(inArray(tasks.accountId, ids)));
    await handle.close();
    env = { DATA_DIR: dir, LOG_LEVEL: "warn" };
  }
}, 60_000);
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`tasks list (${backendName})`, () => {
  test("--json lists every account's tasks newest first, each as the API shows it with whose it is", async () => {
    const result = await cli("tasks", "list", "--json");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const listed = JSON.parse(result.stdout);
    expect(listed.map((t: { id: string }) => t.id)).toEqual([failed.id, other.id, canceled.id, succeeded.id]);
    expect(listed[3]).toEqual({ ...succeeded, account_id: mine.accountId, key_id: mine.keyId, batch_id: null, monitor_id: null });
    expect(listed[1].account_id).toBe(theirs.accountId);
  });

  test("one line per task; --account, --status and --limit narrow it", async () => {
    const mineOnly = await cli("tasks", "list", "--account", mine.accountId);
    expect(mineOnly).toMatchObject({ code: 0, stderr: "" });
    const lines = mineOnly.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toStartWith(`${failed.id}  failed     search`);
    expect(lines[1]).toStartWith(`${canceled.id}  canceled   search`);
    expect(lines[2]).toStartWith(`${succeeded.id}  succeeded  search`);
    expect(lines[2]).toContain(`account ${mine.accountId}  created ${succeeded.created_at}  attempts 1`);

    const byStatus = await cli("tasks", "list", "--status", "canceled");
    expect(
      byStatus.stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.split("  ")[0]),
    ).toEqual([canceled.id]);
    const newest = await cli("tasks", "list", "--limit", "1", "--json");
    expect(JSON.parse(newest.stdout).map((t: { id: string }) => t.id)).toEqual([failed.id]);
    const none = await cli("tasks", "list", "--account", theirs.accountId, "--status", "failed");
    expect(none).toMatchObject({ code: 0, stdout: "no tasks\n" });
  });

  test("a status or a limit it does not know is a usage error (exit 2, with the help)", async () => {
    for (const args of [
      ["--status", "done"],
      ["--limit", "0"],
      ["--limit", "2.5"],
      ["--limit", "1001"],
    ]) {
      const result = await cli("tasks", "list", ...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toStartWith(`error: ${args[0]} must be`);
      expect(result.stderr).toContain("Usage: npm run cli");
    }
  });
});

describe(`tasks show (${backendName})`, () => {
  test("prints the status, kind, account and key, attempts, timings, metadata and the result summed up", async () => {
    const result = await cli("tasks", "show", "--task", succeeded.id);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const text = result.stdout;
    expect(text).toStartWith(`task ${succeeded.id}: succeeded\n`);
    expect(text).toContain("  kind      search\n");
    expect(text).toContain(`  account   ${mine.accountId} (key ${mine.keyId})\n`);
    expect(text).toContain("  attempts  1\n");
    expect(text).toContain(`  created   ${succeeded.created_at}\n`);
    expect(text).toMatch(new RegExp(`  started   ${succeeded.started_at} \\(waited \\d+\\.\\d s\\)\n`));
    expect(text).toMatch(new RegExp(`  finished  ${succeeded.finished_at} \\(ran \\d+\\.\\d s\\)\n`));
    expect(text).toContain('  metadata  {"row":7}\n');
    const answer: string = succeeded.result.response;
    expect(text).toContain(
      `  result    ${answer.length} characters, ${succeeded.result.context.length} sources, ${succeeded.result.info.token_usage} tokens\n`,
    );
    expect(text).toContain(JSON.stringify(answer.length > 200 ? `${answer.slice(0, 200)}…` : answer));
    expect(text).not.toContain("  error ");
  });

  test("a canceled task shows when it ended and no result; --json is the API's task with whose it is", async () => {
    const text = (await cli("tasks", "show", "--task", canceled.id)).stdout;
    expect(text).toStartWith(`task ${canceled.id}: canceled\n`);
    expect(text).toContain(`  finished  ${canceled.finished_at}`);
    expect(text).not.toContain("result");
    const json = await cli("tasks", "show", "--task", other.id, "--json");
    expect(json).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(json.stdout)).toEqual({
      ...other,
      account_id: theirs.accountId,
      key_id: expect.any(String),
      batch_id: null,
      monitor_id: null,
    });
  });

  test("a failed task shows its error's code and words, and no result", async () => {
    expect(failed.error.code).toBe("deadline_exceeded");
    const text = (await cli("tasks", "show", "--task", failed.id)).stdout;
    expect(text).toStartWith(`task ${failed.id}: failed\n`);
    expect(text).toContain(`  error     deadline_exceeded: ${failed.error.message}\n`);
    expect(text).not.toContain("  result ");
  });

  test("an unknown task is exit 1 naming it; no --task is a usage error", async () => {
    expect(await cli("tasks", "show", "--task", "task_nope")).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "error: task task_nope not found\n",
    });
    const missing = await cli("tasks", "show");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toStartWith("error: --task is required\n");
  });
});
