/**
 * A schema-aware fuzz over every operation of the served /openapi.json: each
 * request starts from a body, path and query that fit the operation and
 * breaks one or more things (a field's type, a hostile key, huge or
 * unstorable text, deep nesting, a missing field, a traversal in an id, a
 * content type, a method). Seeded, bounded, and run on loopback only.
 * Asserted: no 5xx but the legitimate ones, no answer that shows a stack,
 * SQL or a file path, /healthz answering throughout, memory bounded.
 */
import { expect, test } from "bun:test";
import { useSearchApp } from "../conformance/search-app.ts";
import { endpointCalls } from "../conformance/endpoints-world.ts";

const s = useSearchApp();
const e = endpointCalls(s);

const SEED = 20_261_123;
const REQUESTS = 6_000;
const CONCURRENCY = 16;

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: "path" | "query"; schema: Schema }[];
  body: Schema | null;
}

function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

/** JSON texts (not values): some hostile input cannot be built as a JS value and stringified. */
const HOSTILE_VALUES = [
  "null",
  "true",
  "0",
  "-1",
  "1e308",
  "-1e308",
  "9007199254740993",
  "1.5",
  '""',
  '" "',
  "[]",
  "{}",
  '{"toString": 1}',
  '{"valueOf": 1, "toString": 2}',
  '{"__proto__": {"admin": true}}',
  '{"constructor": {"prototype": {"x": 1}}}',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  `"${"x".repeat(100_000)}"`,
  '"../../etc/passwd"',
  '"\' OR 1=1 --"',
  '"\\u202e\\ud83d\\ude00"',
  "[[[[[[[[[[1]]]]]]]]]]",
  '"https://127.0.0.1/admin"',
  '"data:image/png;base64,AAAA"',
];
const HOSTILE_PATH = [
  "%00",
  "a%00b",
  "..%2F..%2Fetc%2Fpasswd",
  "..",
  "%2e%2e",
  "-1",
  "0",
  "1e3",
  "99999999999999999999",
  "a".repeat(3000),
  "%E0%A4%A",
  "%ED%A0%80",
  "%C0%AE",
  "toString",
  "__proto__",
  "' OR 1=1 --",
  " ",
];
const CONTENT_TYPES = [
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "application/vnd.api+json",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
// Legitimate 5xx: a search or endpoint run past its deadline (504), and a page the contents route could not fetch (502/504).
const LEGITIMATE_5XX = new Set(["504", "POST /v1/contents 502"]);
const STACK = /\n\s+at \S|node_modules|\/work\/|\.tsx?:\d+/;
// Only in refusals: discovery and /readyz name the database on purpose.
const LEAK = /\bSELECT\b|\bINSERT INTO\b|\bpostgres\b|pglite|syntax error at|duplicate key|violates/i;

function operationsOf(doc: Schema): Operation[] {
  const resolve = (schema: Schema | undefined): Schema => {
    if (!schema) return {};
    if (typeof schema.$ref === "string")
      return resolve(
        schema.$ref
          .split("/")
          .slice(1)
          .reduce((at: Schema, part: string) => at[part], doc),
      );
    return schema;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const params = ((op.parameters ?? []) as Schema[])
        .filter((p) => p.in === "path" || p.in === "query")
        .map((p) => ({ name: p.name, in: p.in, schema: resolve(p.schema) }));
      const body = op.requestBody ? resolve(op.requestBody.content?.["application/json"]?.schema) : null;
      operations.push({ method: method.toUpperCase(), path, params, body });
    }
  }
  return operations;
}

/** A value that fits the schema, as far as this fuzz needs one. */
function sample(schema: Schema, rand: () => number, depth = 0): unknown {
  if (depth > 6) return null;
  if (schema.anyOf) return sample(schema.anyOf.find((b: Schema) => b.type !== "null") ?? schema.anyOf[0], rand, depth + 1);
  if ("const" in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(name) || rand() < 0.5) out[name] = sample(property, rand, depth + 1);
      }
      return out;
    }
    case "array":
      return schema.items ? [sample(schema.items, rand, depth + 1)] : [];
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "string":
      return schema.format === "uri"
        ? "https://wiki.test/eiffel.html"
        : "When was the Eiffel Tower completed?".slice(0, schema.maxLength ?? 200);
    default:
      return "x";
  }
}

/** The body as JSON text with one hostile edit: a field replaced, added or removed, or the whole body swapped. */
function hostileBody(op: Operation, rand: () => number): string {
  const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)]!;
  const base = op.body ? (sample(op.body, rand) as Record<string, unknown>) : {};
  const roll = rand();
  if (roll < 0.02) return `{"a": ${deep(pick([65, 1_000, 100_000]))}}`;
  if (roll < 0.1) return pick(HOSTILE_VALUES);
  const fields = base && typeof base === "object" && !Array.isArray(base) ? Object.keys(base) : [];
  const text = JSON.stringify(base ?? {});
  if (roll < 0.2 && fields.length) {
    const { [pick(fields)]: _dropped, ...rest } = base as Record<string, unknown>;
    return JSON.stringify(rest);
  }
  const target =
    fields.length && rand() < 0.8 ? pick(fields) : pick(["extra", "__proto__", "toString", "constructor", "a\\u0000b", "\\ud800"]);
  const stripped = JSON.stringify(Object.fromEntries(Object.entries(base ?? {}).filter(([k]) => k !== target)));
  const inner = stripped.slice(1, -1);
  return `{${inner}${inner ? ", " : ""}"${target}": ${pick(HOSTILE_VALUES)}}`.replace(/^\{\}$/, text);
}

function hostilePath(op: Operation, targets: Record<string, string>, rand: () => number): string {
  const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)]!;
  let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (rand() < 0.5 ? (targets[name] ?? "1") : pick(HOSTILE_PATH)));
  const query = op.params.filter((p) => p.in === "query");
  if (query.length || rand() < 0.1) {
    const parts = query.map((p) => `${p.name}=${rand() < 0.5 ? encodeURIComponent(String(sample(p.schema, rand))) : pick(HOSTILE_PATH)}`);
    if (rand() < 0.2) parts.push(`${pick(["toString", "__proto__", "a%00", "constructor"])}=${pick(HOSTILE_PATH)}`);
    if (rand() < 0.05) parts.push("q=1&".repeat(500));
    path += `?${parts.join("&")}`;
  }
  return path;
}

test(`${REQUESTS} seeded requests over every operation of /openapi.json: no 5xx, nothing leaked, /healthz answering, memory bounded`, async () => {
  const doc = await (await s.app.fetch("/openapi.json")).json();
  const operations = operationsOf(doc);
  expect(operations.length).toBeGreaterThan(20);
  // Real targets beside garbage ones, so id and stub routes reach their lookups.
  const created = await e.create();
  const published = await e.publish(created.id);
  const keyId = (await (await s.call("POST", "/v1/keys", { name: "fuzz" })).json()).id as string;
  const targets: Record<string, string> = {
    api_id: String(created.id),
    api_stub: created.stub,
    public_stub: published.public_stub,
    key_id: keyId,
    version: "1",
  };

  const rand = mulberry32(SEED);
  const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)]!;
  // Every request is drawn up front, so the sequence does not depend on the answers' timing.
  const requests = Array.from({ length: REQUESTS }, (_, i) => {
    const op = operations[i % operations.length]!;
    const method = rand() < 0.93 ? op.method : pick(METHODS);
    const headers: Record<string, string> = {};
    if (rand() < 0.9) headers["X-API-Key"] = s.apiKey;
    headers["content-type"] = rand() < 0.85 ? "application/json" : pick(CONTENT_TYPES);
    const body = ["GET", "HEAD"].includes(method)
      ? undefined
      : rand() < 0.03
        ? new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])
        : hostileBody(op, rand);
    return { method, path: hostilePath(op, targets, rand), headers, body };
  });

  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  let done = false;
  const health: number[] = [];
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await s.app.fetch("/healthz");
      await response.arrayBuffer();
      health.push(performance.now() - started);
      await Bun.sleep(20);
    }
  })();

  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const response = await s.app.fetch(request.path, { method: request.method, headers: request.headers, body: request.body });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const route = `${request.method} ${request.path.split("?")[0]!.replace(/^\/v1\/contents.*/, "/v1/contents")}`;
        const legitimate = LEGITIMATE_5XX.has(String(response.status)) || LEGITIMATE_5XX.has(`${route} ${response.status}`);
        const shown = `${request.method} ${request.path.slice(0, 120)} ${typeof request.body === "string" ? request.body.slice(0, 160) : request.body ? "<bytes>" : ""} -> ${response.status} ${text.slice(0, 200)}`;
        if (response.status >= 500 && !legitimate) failures.push(shown);
        else if ((STACK.test(text) || (response.status >= 400 && LEAK.test(text))) && !request.path.startsWith("/docs"))
          failures.push(`leak: ${shown}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  done = true;
  await prober;
  Bun.gc(true);
  const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1_048_576;
  const sorted = health.toSorted((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  const p95 = at(0.95);
  const slowest = sorted.at(-1) ?? 0;
  console.log(
    `fuzz: ${REQUESTS} requests over ${operations.length} operations in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; /healthz p95 ${p95.toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms over ${health.length} probes; RSS ${rssGrowthMb >= 0 ? "+" : ""}${rssGrowthMb.toFixed(0)} MB`,
  );

  expect(failures.slice(0, 20)).toEqual([]);
  expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(REQUESTS);
  // The mix reached validation, lookups and successes, not only one kind of refusal.
  for (const status of [200, 401, 404, 422]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
  expect(health.length).toBeGreaterThan(5);
  // About a hundred probes: their p99 is the slowest one, which one GC pause
  // or a busy CI core could push past 200 ms (seen: 257). What is asserted is
  // that /healthz never stalls: most probes are quick and none waits a second.
  expect(p95).toBeLessThan(200);
  expect(slowest).toBeLessThan(1_000);
  expect(rssGrowthMb).toBeLessThan(300);
}, 240_000);
