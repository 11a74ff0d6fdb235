/**
 * 10,000+ malformed requests across every route (bad JSON, wrong types,
 * huge and deeply nested fields, odd unicode, duplicate and hostile headers,
 * odd methods) must give zero 5xx answers.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { burst, jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let app: TestApp;
let apiKey: string;
let routes: { method: string; path: string }[];

beforeAll(async () => {
  database = await freshDatabase();
  app = await startTestApp(database, { env: { MAX_BODY_BYTES: "200000" } });
  apiKey = (await app.account({ limit: 1_000_000 })).apiKey;
  routes = (await jsonOf(app.fetch("/v1/agent-integration"))).routes.map((r: { method: string; path: string }) => ({
    method: r.method.split(" ")[0]!,
    path: r.path.replace(/\{[^}]+\}/g, "key_01m81vxjpee6ta28c6edpbkmfh"),
  }));
  routes.push({ method: "GET", path: "/healthz" }, { method: "GET", path: "/readyz" }, { method: "GET", path: "/openapi.json" });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

// A small deterministic generator, so a failure can be replayed.
function rng(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const BODIES = [
  "",
  "{",
  "}",
  "null",
  "true",
  "[]",
  "{}",
  '{"name": null}',
  '{"name": 5}',
  '{"name": []}',
  '{"name": {"$gt": ""}}',
  '{"__proto__": {"admin": true}}',
  '{"constructor": {"prototype": {"x": 1}}}',
  `{"name": "${"\u0000\u202e\ud83d\ude00".repeat(20)}"}`,
  '{"name": "\\ud800"}',
  `{"name": "${"x".repeat(150_000)}"}`,
  deep(5_000),
  `{"a": ${deep(200)}}`,
  "\u00ff\u00fe{}",
  '{"name": 1e999}',
  '{"name": -0}',
  '{"prompt": "test"}',
  "not json at all",
  '{"name": "a", "name": "b"}',
];
const CONTENT_TYPES = [
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "",
  "application/vnd.api+json",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
const KEYS = () => [apiKey, "", "sk_live_", `${apiKey}, ${apiKey}`, "x".repeat(5_000), "sk_live_\u00e9\u00e9", apiKey.toUpperCase()];

test("10,000 malformed requests get no 5xx", async () => {
  const random = rng(20_261_122);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const fives: string[] = [];
  const statuses = await burst(10_000, 32, async (i) => {
    const route = pick(routes);
    const method = random() < 0.7 ? route.method : pick(METHODS);
    const headers: Record<string, string> = {};
    const key = pick(KEYS());
    if (key) headers["X-API-Key"] = key;
    const contentType = pick(CONTENT_TYPES);
    if (contentType) headers["content-type"] = contentType;
    if (random() < 0.05) headers["X-Request-Id"] = "\u0007".repeat(10);
    const path =
      random() < 0.1
        ? `${route.path}/${encodeURIComponent(pick(["..", "%00", "é", "a".repeat(3000)]))}`
        : random() < 0.05
          ? `${route.path}?${"q=1&".repeat(500)}`
          : route.path;
    const hasBody = !["GET", "HEAD"].includes(method);
    const response = await app.fetch(path, { method, headers, body: hasBody ? pick(BODIES) : undefined });
    if (response.status >= 500) fives.push(`${i}: ${method} ${path.slice(0, 80)} -> ${response.status}`);
    return response;
  });
  expect(fives).toEqual([]);
  expect(statuses.length).toBe(10_000);
  // The mix reached the interesting answers, not just one kind.
  for (const status of [200, 401, 404, 422]) expect(statuses).toContain(status);
});

test("raw requests with hostile framing get no 5xx", async () => {
  const port = Number(new URL(app.url).port);
  const raw = async (text: string) =>
    new Promise<string>((resolve) => {
      let received = "";
      void Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: {
          open(socket) {
            socket.write(text);
          },
          data(_, chunk) {
            received += new TextDecoder().decode(chunk);
          },
          close() {
            resolve(received);
          },
          error() {
            resolve(received);
          },
        },
      });
      setTimeout(() => resolve(received), 1_000);
    });
  const requests = [
    `GET /v1/agent-integration HTTP/1.1\r\nHost: evil.example/<x>\r\nConnection: close\r\n\r\n`,
    `GET /v1/agent-integration HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`,
    `GET /v1/account HTTP/1.1\r\nHost: x\r\nX-API-Key: a\r\nX-API-Key: b\r\nConnection: close\r\n\r\n`,
    `POST /v1/keys HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\nConnection: close\r\n\r\n{}`,
    `POST /v1/keys HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nFFFFFFF\r\n${"a".repeat(300_000)}\r\n0\r\n\r\n`,
    `GET /${"%ff".repeat(100)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  ];
  for (const request of requests) {
    const response = await raw(request);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? "0");
    expect({ request: request.slice(0, 60), status: status >= 500 ? status : "ok" }).toEqual({
      request: request.slice(0, 60),
      status: "ok",
    });
  }
});
