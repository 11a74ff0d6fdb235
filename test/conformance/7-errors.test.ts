/**
 * SPEC 7, errors: each status of the table over real HTTP, with the body the
 * service chose for the statuses whose body the spec does not show:
 * `{"detail": "<message>", "error": "<stable code>"}` (429 adds plan,
 * limit_per_minute, retry_after_seconds). Streaming faces end with close
 * code 1000, after an error too.
 */
import { beforeAll, expect } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { MemoryStore } from "../../src/limits/memory-store.ts";
import { InFlightGauge } from "../../src/limits/peak-load.ts";
import { burst, jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { backendName } from "../helpers/env.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { openSocket, rawUpgrade } from "../helpers/websocket.ts";
import { clause } from "./clause.ts";
import { parseEvents, useSearchApp } from "./search-app.ts";

const s = useSearchApp();
let endpoint: { id: string | number; stub: string };

beforeAll(async () => {
  endpoint = (await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint))).response;
});

/** A non-422 error: the status, exactly `{detail, error}` (plus `extra` members), and the body for further checks. */
async function expectError(response: Response | Promise<Response>, status: number, error: string, extra: string[] = []) {
  const answered = await response;
  expect(answered.status).toBe(status);
  expect(answered.headers.get("content-type")).toContain("application/json");
  const body = await jsonOf(answered);
  expect(Object.keys(body).sort()).toEqual(["detail", "error", ...extra].sort());
  expect(typeof body.detail).toBe("string");
  expect(body.error).toBe(error);
  return body;
}

/** An app on a frozen clock and the in-memory bucket store, so waits are exact. */
async function frozenApp(env: Record<string, string> = {}, load?: InFlightGauge): Promise<{ app: TestApp; clock: ManualClock }> {
  const clock = new ManualClock(Date.now());
  const app = await startTestApp(s.database, { store: (c) => new MemoryStore(c), clock, env, load });
  return { app, clock };
}

const account = (app: TestApp, key: string) => app.fetch("/v1/account", { headers: { "X-API-Key": key } });

clause("7 · 400", "a missing required input of a designed endpoint is a 400 naming it (optional ones as name?: type)", async () => {
  const body = await expectError(s.call("POST", `/v1/user-defined-service/${endpoint.stub}`, { city: "Rome" }), 400, "missing_inputs");
  expect(body.detail).toBe("missing required input: landmark: string (optional: city?: string, language?: string)");
});

clause("7 · 400", "do not retry unchanged: the same request gets the same 400", async () => {
  const first = await jsonOf(s.call("POST", `/v1/user-defined-service/${endpoint.stub}`, {}));
  const again = await s.call("POST", `/v1/user-defined-service/${endpoint.stub}`, {});
  expect(again.status).toBe(400);
  expect(await jsonOf(again)).toEqual(first);
});

clause(
  "7 · 400",
  "a request the service may not carry out as asked is a 400: a page address that is not public (fetch_blocked)",
  async () => {
    await expectError(s.call("POST", "/v1/contents", { url: "http://127.0.0.1/admin" }), 400, "fetch_blocked");
  },
);

clause("7 · 400", "malformed JSON is a 422 json_invalid, as FastAPI answers it, not a 400 (the service's choice)", async () => {
  const response = await s.app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": s.apiKey, "content-type": "application/json" },
    body: '{"prompt": ',
  });
  expect(response.status).toBe(422);
  expect((await jsonOf(response)).detail[0].type).toBe("json_invalid");
});

clause("7 · 401", "a missing or invalid key is a 401 {detail, error: unauthorized}", async () => {
  for (const headers of [{}, { "X-API-Key": "sk_live_nope" }] as Record<string, string>[]) {
    const body = await expectError(
      s.app.fetch("/v1/search", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: '{"prompt": "x"}' }),
      401,
      "unauthorized",
    );
    expect(body.detail).toBe("missing or invalid API key (send it in the X-API-Key header)");
  }
});

clause("7 · 404", "an endpoint id the key does not own is a 404 {detail, error: not_found}", async () => {
  const other = await s.app.account({ name: "other", limit: 10_000 });
  await expectError(s.call("GET", `/v1/design-api/${endpoint.id}`, undefined, other.apiKey), 404, "not_found");
  await expectError(s.call("GET", "/v1/design-api/999999999"), 404, "not_found");
});

clause("7 · 404", "a pinned version that does not exist is a 404, in both families", async () => {
  await expectError(s.call("POST", `/v1/user-defined-service/${endpoint.stub}/v9`, { landmark: "Eiffel Tower" }), 404, "not_found");
  const published = await jsonOf(s.call("POST", `/v1/design-api/${endpoint.id}/publish`, { public_stub: "errors-landmarks" }));
  expect((await s.call("POST", `/v1/published-service/${published.public_stub}/v1`, { landmark: "Eiffel Tower" })).status).toBe(200);
  await expectError(s.call("POST", `/v1/published-service/${published.public_stub}/v2`, { landmark: "Eiffel Tower" }), 404, "not_found");
});

clause("7 · 404", "an unknown route is a JSON 404 too", async () => {
  const body = await expectError(s.call("GET", "/v1/nothing-here"), 404, "not_found");
  expect(body.detail).toBe("Not Found");
});

clause("7 · 409", "editing a released version is a 409 {detail, error: conflict}", async () => {
  const created = (await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint))).response;
  expect((await s.call("POST", `/v1/design-api/${created.id}/release`)).status).toBe(200);
  await expectError(s.call("PATCH", `/v1/design-api/${created.id}`, { api_name: "Renamed" }), 409, "conflict");
  // Refused means unchanged.
  expect((await jsonOf(s.call("GET", `/v1/design-api/${created.id}`))).api_name).toBe(landmarkEndpoint.api_name);
});

clause("7 · 409", "a new version while an unreleased draft exists is a 409 telling to release or delete the draft first", async () => {
  const v1 = (await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint))).response;
  const v2 = await s.call("POST", `/v1/design-api/${v1.id}/versions`);
  expect(v2.status).toBe(200);
  const body = await expectError(s.call("POST", `/v1/design-api/${v1.id}/versions`), 409, "conflict");
  expect(body.detail).toContain("release or delete the draft first");
});

clause("7 · 422", "a validation error is a 422 with 2.4's body, and the same again when retried unchanged", async () => {
  const first = await s.search({ prompt: "" });
  expect(first.status).toBe(422);
  const body = await jsonOf(first);
  expect(body).toEqual({ detail: [{ loc: ["body", "prompt"], msg: expect.any(String), type: "string_too_short" }] });
  const again = await s.search({ prompt: "" });
  expect(again.status).toBe(422);
  expect(await jsonOf(again)).toEqual(body);
});

clause(
  "7 · 429",
  `over the limit is a 429 with Retry-After, the X-RateLimit headers and {detail, error, plan, limit_per_minute, retry_after_seconds} (${backendName})`,
  async () => {
    const { apiKey } = await s.app.account({ name: "limited" });
    await burst(10, 10, () => account(s.app, apiKey));
    const refused = await account(s.app, apiKey);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("10");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    const body = await expectError(refused, 429, "rate_limited", ["plan", "limit_per_minute", "retry_after_seconds"]);
    expect(body).toEqual({
      detail: retryAfter === 1 ? "rate limited, try again in 1 second" : `rate limited, try again in ${retryAfter} seconds`,
      error: "rate_limited",
      plan: "free",
      limit_per_minute: 10,
      retry_after_seconds: retryAfter,
    });
  },
);

clause("7 · 429", 'the message says the wait: "in N seconds", "in 1 second", "in a minute"', async () => {
  const { app, clock } = await frozenApp();
  try {
    const { apiKey } = await app.account({ name: "words" });
    await burst(10, 10, () => account(app, apiKey));
    const six = await jsonOf(account(app, apiKey));
    expect(six).toMatchObject({ detail: "rate limited, try again in 6 seconds", retry_after_seconds: 6 });
    clock.advance(5_500);
    const one = await jsonOf(account(app, apiKey));
    expect(one).toMatchObject({ detail: "rate limited, try again in 1 second", retry_after_seconds: 1 });
  } finally {
    await app.stop();
  }
  // At peak load a free bucket refills at a tenth of its rate here: one call a minute.
  const load = new InFlightGauge();
  const peak = await frozenApp({ PEAK_INFLIGHT_THRESHOLD: "1", PEAK_FREE_REFILL_FACTOR: "0.1" }, load);
  const leave = load.enter();
  try {
    const { apiKey } = await peak.app.account({ name: "peak-words" });
    await burst(10, 10, () => account(peak.app, apiKey));
    const refused = await account(peak.app, apiKey);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await jsonOf(refused)).toMatchObject({ detail: "rate limited, try again in a minute", retry_after_seconds: 60 });
  } finally {
    leave();
    await peak.app.stop();
  }
});

clause("7 · 429", "honouring Retry-After is enough: after that many seconds the call is admitted", async () => {
  const { app, clock } = await frozenApp();
  try {
    const { apiKey } = await app.account({ name: "patient" });
    await burst(10, 10, () => account(app, apiKey));
    const refused = await account(app, apiKey);
    expect(refused.status).toBe(429);
    clock.advance(Number(refused.headers.get("retry-after")) * 1000);
    expect((await account(app, apiKey)).status).toBe(200);
  } finally {
    await app.stop();
  }
});

clause("7 · 429", "a refused WebSocket upgrade is an HTTP 429 with the same body", async () => {
  const { apiKey } = await s.app.account({ name: "ws-limited" });
  await burst(10, 10, () => account(s.app, apiKey));
  const refused = await rawUpgrade(s.wsUrl, { "X-API-Key": apiKey });
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body)).toMatchObject({
    error: "rate_limited",
    plan: "free",
    limit_per_minute: 10,
    detail: expect.stringMatching(/^rate limited, try again in /),
  });
});

clause(
  "7 · 504",
  "a research run past the deadline is a 504 {detail, error: deadline_exceeded}; the streams end with an error message",
  async () => {
    const slow = await startTestApp(s.database, {
      env: s.world.env({ SEARCH_DEADLINE_MS: "1000", SEARCH_HEDGING: "false" }),
      resolver: s.world.resolver,
    });
    s.world.searxng.setLatency(2_500);
    s.world.brave.setLatency(2_500);
    try {
      const key = (await slow.account({ limit: 10_000 })).apiKey;
      const headers = { "X-API-Key": key, "content-type": "application/json" };
      const design = await jsonOf(slow.fetch("/v1/design-api", { method: "POST", headers, body: JSON.stringify(landmarkEndpoint) }));
      const started = performance.now();
      const [json, sse, socket, run] = await Promise.all([
        slow.fetch("/v1/search", { method: "POST", headers, body: JSON.stringify({ prompt: "river bridge" }) }),
        slow
          .fetch("/v1/search", {
            method: "POST",
            headers: { ...headers, accept: "text/event-stream" },
            body: JSON.stringify({ prompt: "river bridge" }),
          })
          .then((r) => r.text()),
        openSocket(`${slow.url.replace("http", "ws")}/v1/ws/search`, {
          headers: { "X-API-Key": key },
          send: JSON.stringify({ prompt: "river bridge" }),
        }),
        slow.fetch(`/v1/user-defined-service/${design.response.stub}`, {
          method: "POST",
          headers,
          body: JSON.stringify({ landmark: "river bridge" }),
        }),
      ]);
      expect(performance.now() - started).toBeLessThan(2_400);
      expect(await expectError(json, 504, "deadline_exceeded")).toEqual({
        detail: "the search did not finish within 1 second",
        error: "deadline_exceeded",
      });
      // A stream's error text is the JSON detail with the JSON code in parentheses.
      expect(parseEvents(sse).at(-1)).toEqual({
        event: "error",
        data: { type: "error", content: "the search did not finish within 1 second (deadline_exceeded)" },
      });
      expect(socket.messages.at(-1)).toEqual({ type: "error", content: "the search did not finish within 1 second (deadline_exceeded)" });
      expect(socket.closeCode).toBe(1000);
      expect(await expectError(run, 504, "deadline_exceeded")).toEqual({
        detail: "the endpoint did not finish within 1 second",
        error: "deadline_exceeded",
      });
    } finally {
      s.world.searxng.setLatency(0);
      s.world.brave.setLatency(0);
      await slow.stop();
    }
  },
  15_000,
);

clause(
  "7 · ¶1",
  "body shape for 400, 401, 404, 409, 429, 504 (not shown): {detail: string, error: stable code}, 429 with three more members",
  async () => {
    await expectError(s.call("POST", `/v1/user-defined-service/${endpoint.stub}`, {}), 400, "missing_inputs");
    await expectError(s.app.fetch("/v1/account"), 401, "unauthorized");
    await expectError(s.call("GET", "/v1/design-api/999999999"), 404, "not_found");
    const released = (await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint))).response;
    await s.call("POST", `/v1/design-api/${released.id}/release`);
    await expectError(s.call("PATCH", `/v1/design-api/${released.id}`, { api_name: "x" }), 409, "conflict");
    const { apiKey } = await s.app.account({ name: "shape" });
    await burst(10, 10, () => account(s.app, apiKey));
    await expectError(account(s.app, apiKey), 429, "rate_limited", ["plan", "limit_per_minute", "retry_after_seconds"]);
    // 504's body is checked with the deadline above.
  },
);

clause("7 · ¶1", "every error response carries X-Request-Id (the service's choice)", async () => {
  for (const response of [await s.app.fetch("/v1/account"), await s.call("GET", "/v1/design-api/999999999"), await s.search({})]) {
    expect(response.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
  }
});

clause(
  "7 · ¶1",
  "streaming close codes (not shown): 1000 after a complete run and after an error; refusals are HTTP statuses on the upgrade",
  async () => {
    expect((await s.socket({ prompt: "When was the Eiffel Tower completed?" })).closeCode).toBe(1000);
    expect((await s.socket({ prompt: "" })).closeCode).toBe(1000);
    expect((await s.socket("not json")).closeCode).toBe(1000);
    expect((await rawUpgrade(s.wsUrl, {})).status).toBe(401);
  },
);
