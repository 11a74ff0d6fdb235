/**
 * One standing across the fleet (issue 25, item 4): a key revoked through
 * one instance, or an account suspended, is refused by every instance within
 * a second, each polled directly, although each holds the key in its cache
 * for a minute (AUTH_CACHE_TTL_MS): only the database's change feed can tell
 * them. And the searches the account has running on other instances end
 * with the refusal's words instead of running on: held open by search
 * providers that take twenty seconds over any question about glaciers.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { changeStatus } from "../../src/accounts/status.ts";
import { systemClock } from "../../src/clock.ts";
import { jsonOf, type TestAccount } from "../helpers/app.ts";
import { startFleet, type Fleet, type Instance } from "../helpers/fleet.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { sseMessages } from "../helpers/sse.ts";
import { waitFor } from "../helpers/wait.ts";
import { openSocket } from "../helpers/websocket.ts";

const SLOW_MS = 20_000;
/** Well under SLOW_MS: a stream that ends within this did not wait for the providers. */
const PROMPTLY_MS = 3_000;
/** The bound: a change made anywhere reaches every instance within it. */
const EVERYWHERE_WITHIN_MS = 1_000;
const SLOW_PROMPT = JSON.stringify({ prompt: "How fast do glaciers move?" });
const UNAUTHORIZED = { detail: "missing or invalid API key (send it in the X-API-Key header)", error: "unauthorized" };

let world: SearchWorld;
let fleet: Fleet;

beforeAll(async () => {
  world = startSearchWorld({ spawned: true });
  world.slowOver("glacier", SLOW_MS);
  fleet = await startFleet({ env: world.env({ PROVIDER_TIMEOUT_MS: String(SLOW_MS * 2), AUTH_CACHE_TTL_MS: "60000" }) });
});
afterAll(async () => {
  await fleet?.close();
  world?.stop();
});

const a = () => fleet.instances[0]!;
const b = () => fleet.instances[1]!;
const c = () => fleet.instances[2]!;
const accountCall = (instance: Instance, apiKey: string) => fetch(`${instance.url}/v1/account`, { headers: { "X-API-Key": apiKey } });

/** Every instance has answered the key once, so each holds it in its cache. */
async function cachedEverywhere(apiKey: string): Promise<void> {
  for (const instance of fleet.instances) expect((await accountCall(instance, apiKey)).status).toBe(200);
}

/**
 * Polls every instance directly with the key until each answers `status`:
 * how long after `since` each first did, by instance name.
 */
async function refusedEverywhere(apiKey: string, status: number, since: number): Promise<Record<string, number>> {
  const after: Record<string, number> = {};
  await Promise.all(
    fleet.instances.map(async (instance) => {
      const until = since + 10_000;
      for (;;) {
        const response = await accountCall(instance, apiKey);
        await response.arrayBuffer();
        if (response.status === status) {
          after[instance.name] = Math.round(performance.now() - since);
          return;
        }
        if (performance.now() > until) throw new Error(`${instance.name} still answers ${response.status}`);
        await Bun.sleep(10);
      }
    }),
  );
  return after;
}

/** Resolves once the instance has a research run executing (its /readyz says so). */
const runningOn = (instance: Instance) =>
  waitFor(async () => (await jsonOf(fetch(`${instance.url}/readyz`))).runs.running > 0, `a run under way on ${instance.name}`, 10_000);

/** A slow SSE search on one instance; the response is awaited later (Bun sends a stream's head with its first bytes). */
const slowStream = (instance: Instance, owner: TestAccount) =>
  fetch(`${instance.url}/v1/search`, {
    method: "POST",
    headers: { "X-API-Key": owner.apiKey, "content-type": "application/json", accept: "text/event-stream" },
    body: SLOW_PROMPT,
  });

const slowSocket = (instance: Instance, owner: TestAccount) =>
  openSocket(`${instance.url.replace("http", "ws")}/v1/ws/search`, {
    headers: { "X-API-Key": owner.apiKey },
    send: SLOW_PROMPT,
    timeoutMs: SLOW_MS * 2,
  });

/** Another key of the owner's account, made through instance a; revoke() revokes it there. */
async function spareKey(owner: TestAccount, name: string): Promise<{ id: string; apiKey: string; revoke(): Promise<Response> }> {
  const created = await jsonOf(
    fetch(`${a().url}/v1/keys`, {
      method: "POST",
      headers: { "X-API-Key": owner.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    }),
  );
  return {
    id: created.id,
    apiKey: created.api_key,
    revoke: () => fetch(`${a().url}/v1/keys/${created.id}`, { method: "DELETE", headers: { "X-API-Key": owner.apiKey } }),
  };
}

test("a key revoked through one instance is refused (401) by every instance within 1 s", async () => {
  const owner = await fleet.account({ name: "revoked", limit: 100_000 });
  const spare = await spareKey(owner, "spare");
  await cachedEverywhere(spare.apiKey);
  expect((await spare.revoke()).status).toBe(200);
  const after = await refusedEverywhere(spare.apiKey, 401, performance.now());
  console.log(`revoked through a; refused after (ms): ${JSON.stringify(after)}`);
  for (const name of ["a", "b", "c"]) expect(after[name]).toBeLessThan(EVERYWHERE_WITHIN_MS);
  expect(await jsonOf(accountCall(c(), spare.apiKey))).toEqual(UNAUTHORIZED);
  // The account's other key goes on working everywhere.
  await cachedEverywhere(owner.apiKey);
});

test("an account suspended is refused (403, with the reason) by every instance within 1 s", async () => {
  const owner = await fleet.account({ name: "suspended", limit: 100_000 });
  await cachedEverywhere(owner.apiKey);
  // The operator's verb (what `cli accounts suspend` runs), on the fleet's database: it is committed when it resolves.
  await changeStatus(
    { db: fleet.database.handle.db, clock: systemClock },
    { accountId: owner.accountId, action: "suspend", reason: "under review", actor: "test" },
  );
  const after = await refusedEverywhere(owner.apiKey, 403, performance.now());
  console.log(`suspended; refused after (ms): ${JSON.stringify(after)}`);
  for (const name of ["a", "b", "c"]) expect(after[name]).toBeLessThan(EVERYWHERE_WITHIN_MS);
  expect(await jsonOf(accountCall(b(), owner.apiKey))).toEqual({
    detail: "this account is suspended: under review",
    error: "account_suspended",
  });
});

test("an account suspended by the CLI: its SSE search on one instance and its WebSocket search on another end with the 403's words", async () => {
  const owner = await fleet.account({ name: "streams", limit: 100_000 });
  const sse = slowStream(b(), owner);
  await runningOn(b());
  const socket = slowSocket(c(), owner);
  await runningOn(c());
  const suspended = await fleet.cli(["accounts", "suspend", "--account", owner.accountId, "--reason", "limit evasion"]);
  expect(suspended.code).toBe(0);
  const suspendedAt = performance.now();
  const words = "this account is suspended: limit evasion (account_suspended)";

  const response = await sse;
  expect(response.status).toBe(200);
  const events = sseMessages(await response.text());
  expect(events.at(-1)).toEqual({ type: "error", content: words });
  expect(events.filter((e) => e.type === "error").length).toBe(1);
  const run = await socket;
  expect(performance.now() - suspendedAt).toBeLessThan(PROMPTLY_MS);
  expect(run.messages.at(-1)).toEqual({ type: "error", content: words });
  expect(run.closeCode).toBe(1000);
  expect(run.closeReason).toBe("account_suspended");
});

// Before the standing watch tracked keys, a revoked key's running searches ran on to their end (only a change of the
// account's standing stopped them).
test("a key revoked through one instance: its SSE and WebSocket searches running on the others end with the 401's words", async () => {
  const owner = await fleet.account({ name: "revoked streams", limit: 100_000 });
  const spare = await spareKey(owner, "streaming");
  const streaming = { ...owner, keyId: spare.id, apiKey: spare.apiKey };
  const sse = slowStream(b(), streaming);
  await runningOn(b());
  const socket = slowSocket(c(), streaming);
  await runningOn(c());
  expect((await spare.revoke()).status).toBe(200);
  const revokedAt = performance.now();
  const words = `${UNAUTHORIZED.detail} (unauthorized)`;

  const events = sseMessages(await (await sse).text());
  expect(events.at(-1)).toEqual({ type: "error", content: words });
  const run = await socket;
  expect(performance.now() - revokedAt).toBeLessThan(PROMPTLY_MS);
  expect(run.messages.at(-1)).toEqual({ type: "error", content: words });
  expect(run.closeReason).toBe("unauthorized");
});
