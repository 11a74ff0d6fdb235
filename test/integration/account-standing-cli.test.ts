/**
 * The operator's commands: `accounts suspend | reinstate | ban | show`, run
 * as the real CLI process. On Postgres the CLI works beside a running
 * instance, which must see each change within a second (the change feed:
 * another process made it). On PGlite only one process may open the data
 * folder, so the CLI runs first and an instance opens the folder afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";
import { runCli } from "../helpers/process.ts";
import { waitFor } from "../helpers/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "as-standing-"));
let env: Record<string, string>;
let database: TestDatabase | undefined;
/** Postgres only: an instance running beside the CLI. */
let app: TestApp | undefined;
let accountId: string;
let apiKey: string;

const cli = (...args: string[]) => runCli(args, env);

beforeAll(async () => {
  env = { USER: "alice", LOG_LEVEL: "warn" };
  if (TEST_DATABASE_URL) {
    database = await freshDatabase();
    env.DATABASE_URL = database.url!;
    app = await startTestApp(database, { env: { AUTH_CACHE_TTL_MS: "60000" } });
    ({ accountId, apiKey } = await app.account({ name: "acme" }));
  } else {
    env.DATA_DIR = dir;
    const created = await cli("accounts", "create", "--name", "acme", "--json");
    expect(created.code).toBe(0);
    ({ account_id: accountId, api_key: apiKey } = JSON.parse(created.stdout));
  }
});
afterAll(async () => {
  await app?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** What the running instance answers the account's key (Postgres), once it says `status`. */
async function instanceAnswers(status: number): Promise<unknown> {
  if (!app) return undefined;
  const started = performance.now();
  const body = await waitFor(
    async () => {
      const response = await app!.fetch("/v1/account", { headers: { "X-API-Key": apiKey } });
      return response.status === status ? ((await jsonOf(response)) as unknown) : undefined;
    },
    `the instance answering ${status}`,
    1_000,
  );
  expect(performance.now() - started).toBeLessThan(1_000);
  return body;
}

describe("accounts suspend, reinstate and ban", () => {
  test("suspend says what it did and who did it; a running instance refuses the key with the reason at once", async () => {
    if (app) expect((await app.fetch("/v1/account", { headers: { "X-API-Key": apiKey } })).status).toBe(200);
    const result = await cli("accounts", "suspend", "--account", accountId, "--reason", "limit evasion (ticket 7)");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe(`account ${accountId} is now suspended (limit evasion (ticket 7)); recorded as suspend by cli:alice\n`);
    if (app)
      expect(await instanceAnswers(403)).toEqual({
        detail: "this account is suspended: limit evasion (ticket 7)",
        error: "account_suspended",
      });
  });

  test("show prints the account, its standing, its keys and the audit trail; never a key's secret", async () => {
    const json = await cli("accounts", "show", "--account", accountId, "--json");
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      id: accountId,
      name: "acme",
      plan: "free",
      balance: 0,
      status: "suspended",
      status_reason: "limit evasion (ticket 7)",
    });
    expect(Date.parse(report.status_changed_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(report.keys).toHaveLength(1);
    expect(Object.keys(report.keys[0]).sort()).toEqual([
      "created_at",
      "expires_at",
      "id",
      "last_used_at",
      "name",
      "prefix",
      "replaced_by",
      "revoked_at",
    ]);
    expect(apiKey.startsWith(report.keys[0].prefix)).toBe(true);
    expect(report.audit).toEqual([
      { at: report.status_changed_at, action: "suspend", actor: "cli:alice", reason: "limit evasion (ticket 7)" },
    ]);

    const text = await cli("accounts", "show", "--account", accountId);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`account ${accountId} "acme"`);
    expect(text.stdout).toContain(`status   suspended since ${report.status_changed_at}: limit evasion (ticket 7)`);
    expect(text.stdout).toContain(`${report.keys[0].id}  ${report.keys[0].prefix}…`);
    expect(text.stdout).toContain(`${report.status_changed_at}  suspend    by cli:alice: limit evasion (ticket 7)`);
    for (const output of [json.stdout, text.stdout]) expect(output).not.toContain(apiKey);
  });

  test("reinstate restores the key at once; ban refuses it again; the trail lists all three, newest first", async () => {
    const reinstated = await cli("accounts", "reinstate", "--account", accountId);
    expect(reinstated.code).toBe(0);
    expect(reinstated.stdout).toContain("is now active");
    if (app) await instanceAnswers(200);
    const banned = await cli("accounts", "ban", "--account", accountId, "--reason", "repeat offence");
    expect(banned.code).toBe(0);
    if (app) expect(await instanceAnswers(403)).toEqual({ detail: "this account is banned: repeat offence", error: "account_suspended" });
    const report = JSON.parse((await cli("accounts", "show", "--account", accountId, "--json")).stdout);
    expect(report.status).toBe("banned");
    expect(report.audit.map((a: { action: string; reason: string | null }) => [a.action, a.reason])).toEqual([
      ["ban", "repeat offence"],
      ["reinstate", null],
      ["suspend", "limit evasion (ticket 7)"],
    ]);
  });

  test("an unknown account or a missing reason: one clear line and a non-zero exit, never a stack trace", async () => {
    const cases: [string[], number, string][] = [
      [["accounts", "suspend", "--account", "acct_nobody", "--reason", "x"], 1, "error: account acct_nobody not found\n"],
      [["accounts", "reinstate", "--account", "acct_nobody"], 1, "error: account acct_nobody not found\n"],
      [["accounts", "show", "--account", "acct_nobody"], 1, "error: account acct_nobody not found\n"],
      [["accounts", "ban", "--account", accountId], 2, "error: --reason is required to ban: the account's callers are shown it\n"],
      [["accounts", "suspend", "--reason", "x"], 2, "error: --account is required\n"],
    ];
    for (const [args, code, first] of cases) {
      const result = await cli(...args);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code, stdout: "" });
      expect(result.stderr.startsWith(first)).toBe(true);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
  });
});

describe.skipIf(Boolean(TEST_DATABASE_URL))("on the embedded database", () => {
  test("an instance opening the folder after the CLI refuses the banned account's key with its reason", async () => {
    const handle = await openDatabase({ kind: "pglite", dataDir: dir, role: "test" });
    const instance = await startTestApp({ handle, url: undefined, drop: () => handle.close() });
    try {
      const response = await instance.fetch("/v1/account", { headers: { "X-API-Key": apiKey } });
      expect(response.status).toBe(403);
      expect(await jsonOf(response)).toEqual({ detail: "this account is banned: repeat offence", error: "account_suspended" });
    } finally {
      await instance.stop();
      await handle.close();
    }
  });
});
