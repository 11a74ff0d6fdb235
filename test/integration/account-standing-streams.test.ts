/**
 * Runs in flight when their account is suspended or banned, or their key is
 * revoked, end at once with the 403's (or the 401's) words: an SSE or WebSocket stream with its one `error` message,
 * a JSON answer with the 403 itself. The run is held open by search
 * providers that take twenty seconds to answer a question about glaciers;
 * the suspension comes from this instance, from another instance, or from
 * plain SQL (as an operator or the CLI would), and each must reach the run
 * well before the providers answer.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { accounts } from "../../db/schema.ts";
import { createKey, revokeKey } from "../../src/accounts/service.ts";
import { changeStatus } from "../../src/accounts/status.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";
import { openSocket } from "../helpers/websocket.ts";

const SLOW_MS = 20_000;
/** Well under SLOW_MS: a run that ends within this did not wait for the providers. */
const PROMPTLY_MS = 3_000;
const SLOW_PROMPT = JSON.stringify({ prompt: "How fast do glaciers move?" });

let database: TestDatabase;
let world: SearchWorld;
let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  world = startSearchWorld();
  const slow = (request: { params: unknown }) => (JSON.stringify(request.params).toLowerCase().includes("glacier") ? SLOW_MS : 0);
  world.searxng.setLatency(slow);
  world.brave.setLatency(slow);
  database = await freshDatabase();
  const env = world.env({ PROVIDER_TIMEOUT_MS: String(SLOW_MS * 2), AUTH_CACHE_TTL_MS: "60000" });
  first = await startTestApp(database, { env, resolver: world.resolver });
  second = await startTestApp(database, { env, resolver: world.resolver, keyPrefix: first.keyPrefix });
});
afterAll(async () => {
  await first.stop();
  await second.stop();
  await database.drop();
  world.stop();
});

/** Resolves once the account has a call registered on the app: its run (or socket) is under way. */
const running = (app: TestApp, owner: TestAccount) => waitFor(() => app.standing.runningFor(owner.accountId) > 0, "the run under way");

function parseSse(text: string): { type: string; content: unknown }[] {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").find((line) => line.startsWith("data: ")))
    .filter((line): line is string => Boolean(line))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

test("an SSE stream ends with the error when its account is suspended on another instance", async () => {
  const owner = await first.account({ name: "sse", limit: 100_000 });
  // Bun sends a stream's head with its first bytes: the response is awaited after the suspension.
  const answer = first.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": owner.apiKey, "content-type": "application/json", accept: "text/event-stream" },
    body: SLOW_PROMPT,
  });
  await running(first, owner);
  const suspendedAt = performance.now();
  await changeStatus(second.accounts, { accountId: owner.accountId, action: "suspend", reason: "limit evasion", actor: "test" });
  const response = await answer;
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const events = parseSse(await response.text());
  expect(performance.now() - suspendedAt).toBeLessThan(PROMPTLY_MS);
  expect(events.at(-1)).toEqual({ type: "error", content: "this account is suspended: limit evasion (account_suspended)" });
  expect(events.filter((e) => e.type === "error").length).toBe(1);
  await waitFor(() => first.standing.runningFor(owner.accountId) === 0, "the run unregistered");
});

test("a WebSocket run ends with the error, then the close, when its account is banned in SQL", async () => {
  const owner = await first.account({ name: "ws", limit: 100_000 });
  const socket = openSocket(`${first.url.replace("http", "ws")}/v1/ws/search`, {
    headers: { "X-API-Key": owner.apiKey },
    send: SLOW_PROMPT,
    timeoutMs: SLOW_MS,
  });
  await running(first, owner);
  // The socket is registered from its opening: wait for the run itself too (the wrapper's registration).
  await waitFor(() => first.standing.runningFor(owner.accountId) >= 2, "the socket's run under way");
  const bannedAt = performance.now();
  await database.handle.db
    .update(accounts)
    .set({ status: "banned", statusReason: "fraud", statusChangedAt: sql`now()` })
    .where(eq(accounts.id, owner.accountId));
  const run = await socket;
  expect(performance.now() - bannedAt).toBeLessThan(PROMPTLY_MS);
  expect(run.messages.at(-1)).toEqual({ type: "error", content: "this account is banned: fraud (account_suspended)" });
  expect(run.closeCode).toBe(1000);
  expect(run.closeReason).toBe("account_suspended");
});

test("a socket still waiting for its message is told and closed", async () => {
  const owner = await first.account({ name: "idle socket", limit: 100_000 });
  const socket = openSocket(`${first.url.replace("http", "ws")}/v1/ws/search`, {
    headers: { "X-API-Key": owner.apiKey },
    send: null,
    timeoutMs: 10_000,
  });
  await running(first, owner);
  await changeStatus(second.accounts, { accountId: owner.accountId, action: "suspend", reason: "under review", actor: "test" });
  const run = await socket;
  expect(run.messages).toEqual([{ type: "error", content: "this account is suspended: under review (account_suspended)" }]);
  expect(run.closeReason).toBe("account_suspended");
});

test("a JSON search in progress answers the 403 when its account is suspended on this instance", async () => {
  const owner = await first.account({ name: "json", limit: 100_000 });
  const answer = first.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": owner.apiKey, "content-type": "application/json" },
    body: SLOW_PROMPT,
  });
  await running(first, owner);
  const suspendedAt = performance.now();
  await changeStatus(first.accounts, { accountId: owner.accountId, action: "suspend", reason: "chargeback", actor: "test" });
  const response = await answer;
  expect(performance.now() - suspendedAt).toBeLessThan(PROMPTLY_MS);
  expect(response.status).toBe(403);
  expect(await jsonOf(response)).toEqual({ detail: "this account is suspended: chargeback", error: "account_suspended" });
});

test("another account's run goes on", async () => {
  const owner = await first.account({ name: "steady", limit: 100_000 });
  const neighbour = await first.account({ name: "suspended neighbour", limit: 100_000 });
  const stop = new AbortController();
  const stream = (account: TestAccount, signal?: AbortSignal) =>
    first.fetch("/v1/search", {
      method: "POST",
      headers: { "X-API-Key": account.apiKey, "content-type": "application/json", accept: "text/event-stream" },
      body: SLOW_PROMPT,
      signal,
    });
  const steady = stream(owner, stop.signal).catch(() => null);
  const ended = stream(neighbour);
  await running(first, owner);
  await running(first, neighbour);
  await changeStatus(first.accounts, { accountId: neighbour.accountId, action: "suspend", reason: "abuse", actor: "test" });
  expect(parseSse(await (await ended).text()).at(-1)).toEqual({
    type: "error",
    content: "this account is suspended: abuse (account_suspended)",
  });
  expect(first.standing.runningFor(owner.accountId)).toBe(1);
  stop.abort();
  await steady;
  await waitFor(() => first.standing.runningFor(owner.accountId) === 0, "the steady run ended by its caller");
});

test("a key revoked on another instance ends the streams running with it there with the 401's words; the account's other key runs on", async () => {
  const owner = await first.account({ name: "revoked key", limit: 100_000 });
  const spare = await createKey(first.accounts, owner.accountId, "spare");
  const stop = new AbortController();
  const sse = (key: string, signal?: AbortSignal) =>
    first.fetch("/v1/search", {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json", accept: "text/event-stream" },
      body: SLOW_PROMPT,
      signal,
    });
  const revoked = sse(owner.apiKey);
  const kept = sse(spare.secret, stop.signal).catch(() => null);
  const socket = openSocket(`${first.url.replace("http", "ws")}/v1/ws/search`, {
    headers: { "X-API-Key": owner.apiKey },
    send: SLOW_PROMPT,
    timeoutMs: SLOW_MS,
  });
  // Two SSE runs, the socket and the socket's run.
  await waitFor(() => first.standing.runningFor(owner.accountId) >= 4, "the runs under way");
  const revokedAt = performance.now();
  await revokeKey(second.accounts, owner.accountId, owner.keyId);
  const unauthorized = "missing or invalid API key (send it in the X-API-Key header) (unauthorized)";
  expect(parseSse(await (await revoked).text()).at(-1)).toEqual({ type: "error", content: unauthorized });
  const run = await socket;
  expect(performance.now() - revokedAt).toBeLessThan(PROMPTLY_MS);
  expect(run.messages.at(-1)).toEqual({ type: "error", content: unauthorized });
  expect(run.closeReason).toBe("unauthorized");
  // The spare key's run is still registered: it was not made with the revoked key.
  expect(first.standing.runningFor(owner.accountId)).toBe(1);
  stop.abort();
  await kept;
});
