/**
 * Limit evasion across Free accounts (SPEC 8.5), end to end: real searches
 * over HTTP (the JSON answer, SSE and the WebSocket) behind a proxy that
 * says where each comes from (TRUST_PROXY, X-Forwarded-For), counted by the
 * detector on the test's store (memory, or Redis with TEST_REDIS_URL), the
 * flags read back from the database, the actions seen by the accounts'
 * next calls, and the operator's report from the real CLI.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, inArray } from "drizzle-orm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openDatabase } from "../../db/client.ts";
import { migrateDatabase } from "../../db/migrate.ts";
import { abuseFlags, accountAudit, accounts, serviceSecrets } from "../../db/schema.ts";
import { workText } from "../../src/abuse/fingerprint.ts";
import type { FlagEvidence } from "../../src/abuse/evidence.ts";
import { insertFlag, type FlagRow } from "../../src/abuse/flags.ts";
import { KeyedHash } from "../../src/abuse/keyed-hash.ts";
import { addCredit } from "../../src/accounts/service.ts";
import { startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL, backendName } from "../helpers/env.ts";
import { runCli } from "../helpers/process.ts";
import { openSocket } from "../helpers/websocket.ts";

const TICKERS = ["AAPL", "MSFT", "NVDA", "AMZN", "GOOG", "META", "TSLA", "ORCL", "INTC", "CSCO", "ADBE", "PYPL"];
const RING_ADDRESS = "198.51.100.7";
const OFFICE_ADDRESS = "203.0.113.50";

interface World {
  app: TestApp;
  database: TestDatabase;
}
const worlds: World[] = [];

async function world(env: Record<string, string> = {}): Promise<World> {
  const database = await freshDatabase();
  // The local index is empty: each search is a real run that finds nothing, quickly.
  const app = await startTestApp(database, { abuse: true, env: { TRUST_PROXY: "true", SEARCH_PROVIDERS: "local", ...env } });
  const made = { app, database };
  worlds.push(made);
  return made;
}

afterEach(async () => {
  for (const w of worlds.splice(0)) {
    await w.app.stop();
    await w.database.drop();
  }
});

type Face = "json" | "sse" | "ws";

/** One search by `account` from `address`, through one of the three faces; its status (a socket that ran to the end is 200). */
async function search(app: TestApp, account: TestAccount, prompt: string, address: string, face: Face = "json"): Promise<number> {
  const headers = { "X-API-Key": account.apiKey, "X-Forwarded-For": `${address}, 10.0.0.1` };
  if (face === "ws") {
    const run = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, { headers, send: JSON.stringify({ prompt }) });
    return run.closeReason === "done" ? 200 : run.closeCode;
  }
  const response = await app.fetch("/v1/search", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", ...(face === "sse" ? { accept: "text/event-stream" } : {}) },
    body: JSON.stringify({ prompt }),
  });
  await response.arrayBuffer();
  return response.status;
}

const FACES: Face[] = ["json", "sse", "ws"];

async function freeAccounts(app: TestApp, n: number, name = "free"): Promise<TestAccount[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => app.account({ name: `${name}-${i}` })));
}

/** The deployment's keyed hash, as the detector made it (stored once in service_secrets). */
async function keyedHash(app: TestApp): Promise<KeyedHash> {
  const [row] = await app.db.select().from(serviceSecrets).where(eq(serviceSecrets.name, "abuse_hash_key"));
  expect(row).toBeDefined();
  return new KeyedHash(row!.value);
}

async function flagsOf(app: TestApp): Promise<FlagRow[]> {
  await app.settled();
  return app.db.select().from(abuseFlags).orderBy(abuseFlags.kind);
}

const evidence = (flag: FlagRow) => flag.evidence as unknown as FlagEvidence;
const priceOf = (ticker: string) => `What is the price of ${ticker}?`;

describe(`ten Free accounts from one address, with the same work (${backendName})`, () => {
  test("an address flag and a work flag, with the accounts, the keyed address, the counts and the window; the address is nowhere in clear", async () => {
    const { app } = await world();
    const ring = await freeAccounts(app, 10);
    // 20 searches in a few seconds across the three faces: twice the Free limit of one account.
    for (let i = 0; i < 20; i++) expect(await search(app, ring[i % 10]!, priceOf(TICKERS[i % 10]!), RING_ADDRESS, FACES[i % 3])).toBe(200);
    const flags = await flagsOf(app);
    expect(flags.map((f) => [f.kind, f.windowSeconds, f.calls, f.action])).toEqual([
      ["address", 60, 11, "report"],
      ["work", 60, 11, "report"],
    ]);
    const hash = await keyedHash(app);
    const address = hash.of("address", RING_ADDRESS);
    const work = hash.of("work", workText({ prompt: priceOf("AAPL"), fields: [] }));
    const expectedAccounts = ring.map((a, i) => ({ account_id: a.accountId, calls: i === 0 ? 2 : 1 }));
    const [byAddress, byWork] = flags as [FlagRow, FlagRow];
    expect(byAddress.subject).toBe(address);
    expect(byWork.subject).toBe(work);
    for (const flag of flags) {
      expect([...flag.accounts].sort((a, b) => b.calls - a.calls || a.account_id.localeCompare(b.account_id))).toEqual(
        [...expectedAccounts].sort((a, b) => b.calls - a.calls || a.account_id.localeCompare(b.account_id)),
      );
      expect(evidence(flag)).toMatchObject({
        addresses: [{ hash: address, calls: 11 }],
        fingerprints: [{ fingerprint: work, calls: 11 }],
        threshold: 10,
        min_accounts: 3,
      });
      const { first_at, last_at } = evidence(flag);
      expect(Date.parse(first_at)).toBeLessThanOrEqual(Date.parse(last_at));
      expect(Date.parse(last_at) - Date.parse(first_at)).toBeLessThan(60_000);
    }
    // Only keyed hashes are stored: neither the address nor the prompts appear in any flag.
    const stored = JSON.stringify(await app.db.select().from(abuseFlags));
    expect(stored).not.toContain(RING_ADDRESS);
    expect(stored).not.toContain("198.51.100");
    expect(stored.toLowerCase()).not.toContain("price");
    const lines = app.logs.filter((l) => l.includes("limit evasion across accounts flagged"));
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", action: "report", accounts: 10, acted_on: 0 });
    expect(app.logs.join("\n")).not.toContain(RING_ADDRESS);
    // report acts on nobody.
    const rows = await app.db
      .select()
      .from(accounts)
      .where(
        inArray(
          accounts.id,
          ring.map((a) => a.accountId),
        ),
      );
    expect(rows.every((r) => r.status === "active" && r.sharedBucket === null)).toBe(true);
  });
});

describe(`ten Free accounts from ten addresses, with the same prompts (${backendName})`, () => {
  test("a work flag naming every address's keyed hash; no address flag", async () => {
    const { app } = await world();
    const ring = await freeAccounts(app, 10);
    const addresses = ring.map((_, i) => `198.51.100.${20 + i}`);
    for (let i = 0; i < 20; i++) expect(await search(app, ring[i % 10]!, priceOf(TICKERS[(i * 7) % 12]!), addresses[i % 10]!)).toBe(200);
    const flags = await flagsOf(app);
    expect(flags.map((f) => [f.kind, f.windowSeconds, f.calls, f.accounts.length])).toEqual([["work", 60, 11, 10]]);
    const hash = await keyedHash(app);
    const seen = evidence(flags[0]!).addresses;
    expect(seen).toHaveLength(10);
    expect(seen[0]).toEqual({ hash: hash.of("address", addresses[0]!), calls: 2 });
    expect(new Set(seen.map((a) => a.hash))).toEqual(new Set(addresses.map((a) => hash.of("address", a))));
  });
});

describe(`ordinary accounts raise no flag (${backendName})`, () => {
  test("twelve people behind one office address, each with their own questions, above 10 a minute together", async () => {
    const { app } = await world();
    const staff = await freeAccounts(app, 12, "staff");
    const questions = [
      "Who designed the Eiffel Tower?",
      "How long is the river bridge?",
      "When does the council meet?",
      "Why is the sky blue?",
      "Best way to learn TypeScript generics",
      "how do tides work",
      "Recipe for a lemon tart",
      "What causes inflation",
      "Which planets have rings?",
      "history of the printing press",
      "How tall is Mount Everest?",
      "symptoms of a cold versus the flu",
    ];
    for (let i = 0; i < 24; i++) {
      const person = i % 12;
      // Each asks their own questions: their second differs from their first.
      const prompt = i < 12 ? questions[person]! : `${questions[(person + 5) % 12]} explained for ${person} year olds`;
      expect(await search(app, staff[person]!, prompt, OFFICE_ADDRESS, FACES[i % 3])).toBe(200);
    }
    expect(await flagsOf(app)).toEqual([]);
  });

  test("paid accounts with the same work from one address are never counted nor acted on", async () => {
    const { app } = await world({ ABUSE_ACTION: "suspend" });
    const paid = await Promise.all(Array.from({ length: 10 }, (_, i) => app.account({ name: `pro-${i}`, credit: 5 })));
    for (let i = 0; i < 30; i++) expect(await search(app, paid[i % 10]!, priceOf(TICKERS[i % 12]!), RING_ADDRESS)).toBe(200);
    expect(await flagsOf(app)).toEqual([]);
    const rows = await app.db
      .select()
      .from(accounts)
      .where(
        inArray(
          accounts.id,
          paid.map((a) => a.accountId),
        ),
      );
    expect(rows.map((r) => r.status)).toEqual(Array(10).fill("active"));
  });
});

describe(`ABUSE_ACTION=throttle (${backendName})`, () => {
  test("the flagged accounts then share one Free bucket: the 11th call across them is 429 while each alone would be allowed", async () => {
    const { app } = await world({ ABUSE_ACTION: "throttle" });
    const ring = await freeAccounts(app, 10);
    const bystander = (await freeAccounts(app, 1, "bystander"))[0]!;
    for (let i = 0; i < 11; i++) expect(await search(app, ring[i % 10]!, priceOf(TICKERS[i % 10]!), RING_ADDRESS)).toBe(200);
    const flags = await flagsOf(app);
    expect(flags.map((f) => [f.kind, f.action])).toEqual([
      ["address", "throttle"],
      ["work", "throttle"],
    ]);
    // The first flag written put them on its bucket; the second found them there already.
    const rows = await app.db
      .select()
      .from(accounts)
      .where(
        inArray(
          accounts.id,
          ring.map((a) => a.accountId),
        ),
      );
    const buckets = new Set(rows.map((r) => r.sharedBucket));
    expect(buckets.size).toBe(1);
    expect(flags.map((f) => f.id)).toContain([...buckets][0]!);
    const audit = await app.db.select().from(accountAudit).where(eq(accountAudit.accountId, ring[3]!.accountId));
    expect(audit.map((a) => [a.action, a.actor])).toEqual([["throttle", "abuse-detector"]]);
    expect(audit[0]!.reason).toContain([...buckets][0]!);
    // Each account has spent one or two of its own ten tokens, but together they now have one Free allowance.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await search(app, ring[(i + 1) % 10]!, `Tell me about ${TICKERS[i]}`, "192.0.2.1"));
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses[10]).toBe(429);
    // Someone else from the same address is not touched.
    expect(await search(app, bystander, priceOf("IBM"), RING_ADDRESS)).toBe(200);
  });
});

describe(`ABUSE_ACTION=suspend (${backendName})`, () => {
  test("the flagged Free accounts get 403 account_suspended; an account that paid before the action, and paid ones alike, are untouched", async () => {
    const { app } = await world({ ABUSE_ACTION: "suspend" });
    const ring = await freeAccounts(app, 10);
    const paid = await app.account({ name: "pro-neighbour", credit: 5 });
    // Ten calls: one under the threshold. A paid account's same work in between is not counted.
    for (let i = 0; i < 10; i++) {
      expect(await search(app, ring[i]!, priceOf(TICKERS[i]!), RING_ADDRESS)).toBe(200);
      expect(await search(app, paid, priceOf(TICKERS[i]!), RING_ADDRESS)).toBe(200);
    }
    // The last account pays before the call that raises the flag: counted while Free, never acted on.
    await addCredit(app.accounts, ring[9]!.accountId, 5);
    expect(await search(app, ring[0]!, priceOf("IBM"), RING_ADDRESS)).toBe(200);
    const flags = await flagsOf(app);
    expect(flags.map((f) => [f.kind, f.action, f.accounts.length])).toEqual([
      ["address", "suspend", 10],
      ["work", "suspend", 10],
    ]);
    const refused = await app.fetch("/v1/account", { headers: { "X-API-Key": ring[4]!.apiKey } });
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.error).toBe("account_suspended");
    expect(body.detail).toMatch(/^this account is suspended: limit evasion across accounts \(flag abf_[0-9a-z]{26}\)$/);
    expect(flags.map((f) => f.id)).toContain(/flag (abf_\w+)/.exec(body.detail)![1]!);
    const rows = await app.db
      .select()
      .from(accounts)
      .where(
        inArray(
          accounts.id,
          [...ring, paid].map((a) => a.accountId),
        ),
      );
    const status = new Map(rows.map((r) => [r.id, r.status]));
    expect(ring.slice(0, 9).map((a) => status.get(a.accountId))).toEqual(Array(9).fill("suspended"));
    expect(status.get(ring[9]!.accountId)).toBe("active");
    expect(status.get(paid.accountId)).toBe("active");
    expect(await search(app, ring[9]!, "What is the weather?", RING_ADDRESS)).toBe(200);
    expect(await search(app, paid, "What is the weather?", RING_ADDRESS)).toBe(200);
    const audit = await app.db.select().from(accountAudit).where(eq(accountAudit.accountId, ring[0]!.accountId));
    expect(audit.map((a) => [a.action, a.actor])).toEqual([["suspend", "abuse-detector"]]);
  });
});

/** A client of /mcp for `account`, its requests sent from `address` through the proxy (X-Forwarded-For). */
async function mcpClient(app: TestApp, account: TestAccount, address: string): Promise<Client> {
  const headers = { authorization: `Bearer ${account.apiKey}`, "x-forwarded-for": `${address}, 10.0.0.1` };
  const mcp = new Client({ name: "abuse-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers } }));
  return mcp;
}

describe(`calls through MCP are counted with the client's address, as HTTP calls are (${backendName})`, () => {
  /** Eleven searches through MCP tools/call by ten Free accounts from `address`, each with its own questions. */
  async function ringThroughMcp(app: TestApp, address: string): Promise<void> {
    const ring = await freeAccounts(app, 10);
    const clients = await Promise.all(ring.map((account) => mcpClient(app, account, address)));
    try {
      for (let i = 0; i < 11; i++) {
        const result = await clients[i % 10]!.callTool({ name: "search", arguments: { prompt: `Tell me about ${TICKERS[i]} (${i})` } });
        expect(result.isError).toBeFalsy();
      }
    } finally {
      for (const mcp of clients) await mcp.close();
    }
  }

  test("behind a trusted proxy (TRUST_PROXY): an address flag on the forwarded address's keyed hash", async () => {
    const { app } = await world();
    await ringThroughMcp(app, RING_ADDRESS);
    const flags = await flagsOf(app);
    const byAddress = flags.filter((f) => f.kind === "address");
    expect(byAddress.map((f) => [f.windowSeconds, f.calls, f.accounts.length])).toEqual([[60, 11, 10]]);
    expect(byAddress[0]!.subject).toBe((await keyedHash(app)).of("address", RING_ADDRESS));
  });

  // Each face on its own: a ring whose every call is on that face must be counted at its socket's address.
  for (const face of FACES) {
    test(`without TRUST_PROXY, calls over ${face} count their socket's address, read while their request is open`, async () => {
      const { app } = await world({ TRUST_PROXY: "false" });
      const ring = await freeAccounts(app, 10);
      for (let i = 0; i < 11; i++) expect(await search(app, ring[i % 10]!, priceOf(TICKERS[i % 10]!), RING_ADDRESS, face)).toBe(200);
      const byAddress = (await flagsOf(app)).filter((f) => f.kind === "address");
      expect(byAddress.map((f) => f.calls)).toEqual([11]);
      expect(byAddress[0]!.subject).toBe((await keyedHash(app)).of("address", "127.0.0.1"));
    });
  }

  test("without TRUST_PROXY the forwarded address is not believed: the socket's is counted", async () => {
    const { app } = await world({ TRUST_PROXY: "false" });
    await ringThroughMcp(app, RING_ADDRESS);
    const flags = await flagsOf(app);
    const byAddress = flags.filter((f) => f.kind === "address");
    expect(byAddress.map((f) => f.calls)).toEqual([11]);
    expect(byAddress[0]!.subject).toBe((await keyedHash(app)).of("address", "127.0.0.1"));
  });
});

describe(`the operator's report: npm run cli -- abuse report (${backendName})`, () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The CLI's environment over the flags: the test's Postgres, or (embedded) a data folder holding copies of them. */
  async function cliOver(database: TestDatabase, flags: FlagRow[], old: FlagRow): Promise<Record<string, string>> {
    if (TEST_DATABASE_URL) return { DATABASE_URL: database.url! };
    const dir = mkdtempSync(join(tmpdir(), "abuse-report-"));
    dirs.push(dir);
    const handle = await openDatabase({ kind: "pglite", dataDir: dir, role: "test" });
    await migrateDatabase(handle, undefined);
    await handle.db.insert(abuseFlags).values([...flags, old]);
    await handle.close();
    return { DATA_DIR: dir };
  }

  test("lists the flags newest first with their evidence, as text and as --json; flags past the retention are deleted", async () => {
    const { app, database } = await world();
    const ring = await freeAccounts(app, 5);
    for (let i = 0; i < 11; i++) await search(app, ring[i % 5]!, priceOf(TICKERS[i]!), RING_ADDRESS);
    const flags = await flagsOf(app);
    expect(flags).toHaveLength(2);
    // A flag from 40 days ago: past the 30-day retention.
    const old = await insertFlag(
      app.db,
      { ...flags[0]!, accounts: flags[0]!.accounts, evidence: evidence(flags[0]!), kind: "address" },
      "report",
      new Date(Date.now() - 40 * 86_400_000),
    );
    const env = await cliOver(database, flags, old);

    const json = await runCli(["abuse", "report", "--since", "60d", "--json"], env);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as Record<string, any>[];
    expect(listed.map((f) => f.id).sort()).toEqual(flags.map((f) => f.id).sort());
    const hash = (await keyedHash(app)).of("address", RING_ADDRESS);
    const byAddress = listed.find((f) => f.kind === "address")!;
    expect(byAddress).toMatchObject({ subject: hash, window_seconds: 60, calls: 11, action: "report" });
    expect(byAddress.accounts).toHaveLength(5);
    expect(byAddress.evidence.addresses).toEqual([{ hash, calls: 11 }]);
    expect(Date.parse(listed[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(listed[1]!.created_at));

    const text = await runCli(["abuse", "report"], env);
    expect(text.code).toBe(0);
    for (const flag of flags) expect(text.stdout).toContain(flag.id);
    expect(text.stdout).toContain(`address  11 calls in 60s (over 10)  5 accounts  action report`);
    expect(text.stdout).toContain(`addresses     ${hash} (11)`);
    expect(text.stdout).toContain(`${ring[0]!.accountId} (3)`);
    expect(text.stdout).not.toContain(old.id);

    expect((await runCli(["abuse", "report", "--since", "1m", "--json"], env)).stdout.trim()).not.toBe("[]");
    const bad = await runCli(["abuse", "report", "--since", "soon"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since must be a number and a unit");
    if (TEST_DATABASE_URL) expect(await app.db.select().from(abuseFlags).where(eq(abuseFlags.id, old.id))).toEqual([]);
  });
});
