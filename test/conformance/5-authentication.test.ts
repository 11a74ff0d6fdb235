/**
 * SPEC 5, authentication: the X-API-Key header on every call but discovery,
 * on the WebSocket upgrade too; keys bound to their account's endpoints;
 * keys never needed in URLs, prompts or samples; expiry and rotation.
 */
import { beforeAll, expect } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { jsonOf, startTestApp, type TestAccount } from "../helpers/app.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { rawUpgrade } from "../helpers/websocket.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const UNAUTHORIZED = { detail: "missing or invalid API key (send it in the X-API-Key header)", error: "unauthorized" };

let alice: TestAccount;
let bob: TestAccount;
let bobEndpoint: { id: string | number; stub: string };

beforeAll(async () => {
  alice = await s.app.account({ name: "alice", limit: 10_000 });
  bob = await s.app.account({ name: "bob", limit: 10_000 });
  bobEndpoint = (await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint, bob.apiKey))).response;
});

/** Every authenticated operation of section 4 (and the account routes), with a body where one is needed. */
const OPERATIONS: [string, string, unknown?][] = [
  ["POST", "/v1/search", { prompt: "test" }],
  ["POST", "/v1/contents", { url: "https://example.com/" }],
  ["POST", "/v1/user-defined-service/some-stub", {}],
  ["POST", "/v1/user-defined-service/some-stub/v1", {}],
  ["POST", "/v1/published-service/some-stub", {}],
  ["POST", "/v1/published-service/some-stub/v1", {}],
  ["POST", "/v1/design-api", { original_prompt: "Given a city, find its mayor" }],
  ["GET", "/v1/design-api"],
  ["GET", "/v1/design-api/1"],
  ["PATCH", "/v1/design-api/1", { api_name: "x" }],
  ["DELETE", "/v1/design-api/1"],
  ["GET", "/v1/design-api/1/versions"],
  ["POST", "/v1/design-api/1/versions"],
  ["POST", "/v1/design-api/1/release"],
  ["GET", "/v1/account"],
  ["GET", "/v1/keys"],
  ["GET", "/v1/usage"],
  ["GET", "/v1/marketplace"],
];

const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
  s.app.fetch(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

clause("5.1", "every operation without X-API-Key is a 401 with the same body", async () => {
  for (const [method, path, body] of OPERATIONS) {
    const response = await send(method, path, body, {});
    expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 401`);
    expect(await jsonOf(response)).toEqual(UNAUTHORIZED);
  }
});

clause("5.1", "an unknown, malformed or empty key is a 401 with the same body", async () => {
  for (const key of ["sk_live_" + "x".repeat(40), "nonsense", " "]) {
    for (const [method, path, body] of OPERATIONS.slice(0, 4)) {
      const response = await send(method, path, body, { "X-API-Key": key });
      expect(response.status).toBe(401);
      expect(await jsonOf(response)).toEqual(UNAUTHORIZED);
    }
  }
});

clause("5.1", "GET /v1/agent-integration needs no key", async () => {
  const response = await s.app.fetch("/v1/agent-integration");
  expect(response.status).toBe(200);
  const body = await jsonOf(response);
  expect(typeof body.clients).toBe("object");
  expect(body.clients).not.toBeNull();
});

clause("5.1", "the account's key in X-API-Key is accepted (the header name is case-insensitive, as HTTP's are)", async () => {
  for (const name of ["X-API-Key", "x-api-key", "X-Api-Key"]) {
    const response = await send("GET", "/v1/account", undefined, { [name]: alice.apiKey });
    expect(response.status).toBe(200);
    expect((await jsonOf(response)).id).toBe(alice.accountId);
  }
});

clause("5.1", "the key is read only from X-API-Key: Authorization: Bearer is not an alternative", async () => {
  const response = await send("GET", "/v1/account", undefined, { authorization: `Bearer ${alice.apiKey}` });
  expect(response.status).toBe(401);
  expect(await jsonOf(response)).toEqual(UNAUTHORIZED);
});

clause("5.1", "the security scheme published in /openapi.json is an API key in the X-API-Key header", async () => {
  const document = await jsonOf(s.app.fetch("/openapi.json"));
  const schemes = Object.values(document.components.securitySchemes) as { type: string; in: string; name: string }[];
  expect(schemes).toContainEqual({ type: "apiKey", in: "header", name: "X-API-Key" });
  const [name] = Object.entries(document.components.securitySchemes).find(([, v]) => (v as { in: string }).in === "header")!;
  expect(document.paths["/v1/search"].post.security).toContainEqual({ [name]: [] });
  expect(document.paths["/v1/agent-integration"].get.security ?? []).toEqual([]);
});

clause("5.1", "besides discovery, only health and documentation routes answer without a key (the service's choice)", async () => {
  for (const path of ["/healthz", "/readyz", "/openapi.json", "/docs"]) expect((await s.app.fetch(path)).status).toBe(200);
});

clause("5.2", "the WebSocket upgrade carrying X-API-Key is accepted with 101", async () => {
  expect((await rawUpgrade(s.wsUrl, { "X-API-Key": alice.apiKey })).status).toBe(101);
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" }, alice.apiKey);
  expect(run.messages[0]!.type).toBe("context");
  expect(run.closeCode).toBe(1000);
});

clause("5.2", "an upgrade without the header, or with a bad key, is refused with 401 and the JSON body", async () => {
  for (const headers of [{}, { "X-API-Key": "sk_live_wrong" }] as Record<string, string>[]) {
    const refused = await rawUpgrade(s.wsUrl, headers);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual(UNAUTHORIZED);
  }
});

clause("5.2", "a key in the upgrade URL's query string is not accepted", async () => {
  const refused = await rawUpgrade(`${s.wsUrl}?api_key=${alice.apiKey}&x-api-key=${alice.apiKey}`, {});
  expect(refused.status).toBe(401);
});

clause(
  "5.2",
  "browsers, which cannot set headers, may send the key as the subprotocol pair x-api-key, <key> (the service's choice)",
  async () => {
    const { openSocket } = await import("../helpers/websocket.ts");
    const run = await openSocket(s.wsUrl, { protocols: ["x-api-key", alice.apiKey], send: JSON.stringify({ prompt: "Eiffel Tower" }) });
    expect(run.protocol).toBe("x-api-key");
    expect(run.messages[0]!.type).toBe("context");
  },
);

clause("5.3", "a designed endpoint id of another account is answered exactly like a missing one: 404", async () => {
  const missing = await s.call("GET", "/v1/design-api/999999999", undefined, alice.apiKey);
  expect(missing.status).toBe(404);
  const missingBody = await jsonOf(missing);
  expect(missingBody).toEqual({ detail: expect.any(String), error: "not_found" });
  const calls: [string, string, unknown?][] = [
    ["GET", `/v1/design-api/${bobEndpoint.id}`],
    ["PATCH", `/v1/design-api/${bobEndpoint.id}`, { api_name: "Taken over" }],
    ["GET", `/v1/design-api/${bobEndpoint.id}/versions`],
    ["POST", `/v1/design-api/${bobEndpoint.id}/versions`],
    ["POST", `/v1/design-api/${bobEndpoint.id}/release`],
    ["POST", `/v1/design-api/${bobEndpoint.id}/publish`, { public_stub: "stolen-endpoint" }],
    ["DELETE", `/v1/design-api/${bobEndpoint.id}`],
  ];
  for (const [method, path, body] of calls) {
    const response = await s.call(method, path, body, alice.apiKey);
    expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 404`);
    expect(await jsonOf(response)).toEqual(missingBody);
  }
  // Nothing happened to bob's endpoint.
  const own = await jsonOf(s.call("GET", `/v1/design-api/${bobEndpoint.id}`, undefined, bob.apiKey));
  expect(own).toMatchObject({ id: bobEndpoint.id, api_name: landmarkEndpoint.api_name, frozen_at: null });
});

clause("5.3", "another account's endpoint is absent from the caller's list and its stub is a 404 to run", async () => {
  const list = await jsonOf(s.call("GET", "/v1/design-api?all_versions=true", undefined, alice.apiKey));
  expect(list.map((r: { id: unknown }) => r.id)).not.toContain(bobEndpoint.id);
  for (const path of [`/v1/user-defined-service/${bobEndpoint.stub}`, `/v1/user-defined-service/${bobEndpoint.stub}/v1`]) {
    const response = await s.call("POST", path, { landmark: "Eiffel Tower" }, alice.apiKey);
    expect(response.status).toBe(404);
    expect((await jsonOf(response)).error).toBe("not_found");
  }
});

clause("5.3", "keys are per account: a second key of the same account sees the same endpoints", async () => {
  const created = await s.app.fetch("/v1/keys", {
    method: "POST",
    headers: { "X-API-Key": bob.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "second" }),
  });
  expect(created.status).toBe(201);
  const { api_key } = await jsonOf(created);
  const seen = await jsonOf(s.call("GET", `/v1/design-api/${bobEndpoint.id}`, undefined, api_key));
  expect(seen.id).toBe(bobEndpoint.id);
});

clause("5.4", "no key rides in a URL: a key in the query string is refused", async () => {
  for (const query of [`api_key=${alice.apiKey}`, `key=${alice.apiKey}`, `x-api-key=${alice.apiKey}`]) {
    const response = await s.app.fetch(`/v1/account?${query}`);
    expect(response.status).toBe(401);
  }
});

clause("5.4", "integration samples and the discovery prompt read the key from $CRITIQUE_API_KEY, never carry it", async () => {
  const record = await jsonOf(s.call("GET", `/v1/design-api/${bobEndpoint.id}`, undefined, bob.apiKey));
  const samples = JSON.stringify(record.integration);
  expect(samples).not.toContain(bob.apiKey);
  for (const language of ["curl", "python", "javascript"]) expect(record.integration.code[language]).toContain("CRITIQUE_API_KEY");
  const discovery = await (await s.app.fetch("/v1/agent-integration", { headers: { "X-API-Key": bob.apiKey } })).text();
  expect(discovery).not.toContain(bob.apiKey);
  expect(discovery).toContain("CRITIQUE_API_KEY");
});

clause("5.4", "the key never reaches a search provider, nor the logs", async () => {
  await s.search({ prompt: "When was the Eiffel Tower completed?" }, {}, alice.apiKey);
  await s.search({ prompt: 5 }, {}, alice.apiKey);
  const seen = JSON.stringify([...s.world.searxng.requests, ...s.world.brave.requests]);
  expect(seen).not.toContain(alice.apiKey);
  expect(s.app.logs.join("\n")).not.toContain(alice.apiKey);
  expect(s.app.logs.join("\n")).not.toContain(alice.apiKey.slice(16));
});

clause("5.4", "a key's secret is shown once: listings carry only its prefix", async () => {
  const list = await jsonOf(s.app.fetch("/v1/keys", { headers: { "X-API-Key": alice.apiKey } }));
  expect(JSON.stringify(list)).not.toContain(alice.apiKey);
  const own = list.keys.find((k: { id: string }) => k.id === alice.keyId);
  expect(alice.apiKey.startsWith(own.prefix)).toBe(true);
  expect(own.prefix.length).toBeLessThan(alice.apiKey.length);
});

clause(
  "5.5",
  "keys do not expire unless asked to (the service's choice): a key works after a long time, and its record has no expiry",
  async () => {
    const clock = new ManualClock(Date.now());
    const later = await startTestApp(s.database, { env: s.world.env(), resolver: s.world.resolver, clock });
    try {
      const { apiKey, keyId } = await later.account({ name: "patient" });
      clock.advance(400 * 24 * 3600 * 1000);
      const response = await later.fetch(`/v1/keys/${keyId}`, { headers: { "X-API-Key": apiKey } });
      expect(response.status).toBe(200);
      const body = await jsonOf(response);
      expect(Object.keys(body).sort()).toEqual([
        "created_at",
        "expires_at",
        "id",
        "last_used_at",
        "name",
        "prefix",
        "replaced_by",
        "revoked_at",
      ]);
      expect(body).toMatchObject({ expires_at: null, replaced_by: null });
    } finally {
      await later.stop();
    }
  },
);

clause(
  "5.5",
  "expiry and rotation (the service's choice): a key may be made to expire; a rotation's old key works for a grace period",
  async () => {
    const clock = new ManualClock(Date.now());
    const later = await startTestApp(s.database, { env: s.world.env(), resolver: s.world.resolver, clock });
    try {
      const { apiKey } = await later.account({ name: "expiring", limit: 10_000 });
      const send = (path: string, body: unknown) =>
        later.fetch(path, {
          method: "POST",
          headers: { "X-API-Key": apiKey, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const short = await jsonOf(send("/v1/keys", { name: "a week", expires_in_days: 7 }));
      const rotated = await jsonOf(send(`/v1/keys/${short.id}/rotate`, { grace_seconds: 3600 }));
      expect(rotated.rotated_from).toMatchObject({ id: short.id, replaced_by: rotated.id });
      const works = async (key: string) => (await later.fetch("/v1/account", { headers: { "X-API-Key": key } })).status;
      expect([await works(short.api_key), await works(rotated.api_key)]).toEqual([200, 200]);
      clock.advance(3600 * 1000);
      expect([await works(short.api_key), await works(rotated.api_key)]).toEqual([401, 200]);
      clock.advance(7 * 24 * 3600 * 1000);
      expect(await works(rotated.api_key)).toBe(401);
    } finally {
      await later.stop();
    }
  },
);

clause("5.5", "rotation by hand: create a new key, then revoke the old one; both take effect at once", async () => {
  const account = await s.app.account({ name: "rotating", limit: 10_000 });
  const created = await jsonOf(
    s.app.fetch("/v1/keys", {
      method: "POST",
      headers: { "X-API-Key": account.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ name: "next" }),
    }),
  );
  expect(typeof created.api_key).toBe("string");
  expect((await s.app.fetch("/v1/account", { headers: { "X-API-Key": created.api_key } })).status).toBe(200);
  const revoked = await s.app.fetch(`/v1/keys/${account.keyId}`, { method: "DELETE", headers: { "X-API-Key": created.api_key } });
  expect(revoked.status).toBe(200);
  expect(typeof (await jsonOf(revoked)).revoked_at).toBe("string");
  const old = await s.app.fetch("/v1/account", { headers: { "X-API-Key": account.apiKey } });
  expect(old.status).toBe(401);
  expect(await jsonOf(old)).toEqual(UNAUTHORIZED);
  expect((await s.app.fetch("/v1/account", { headers: { "X-API-Key": created.api_key } })).status).toBe(200);
});
