/**
 * The floor for bench/http.ts: what the framework itself costs for the
 * measured routes, so the service's overhead above it is ours to remove.
 * A minimal app on the same Elysia, with the same TypeBox schemas for the
 * routes that have one (the search body, from src/research/model.ts), an
 * auth derive that finds the key in a Map and spends a token of an
 * in-memory bucket, a request id, and one JSON access-log line per request,
 * written the cheapest way found: built by hand in a wrapper around the
 * app's handler (no lifecycle hook, no per-request closure) and batched to
 * standard output with the service's own sink. No database, no Redis.
 *
 * Keys come in the environment (FLOOR_ENTERPRISE_KEY, FLOOR_FREE_KEY); it
 * prints its port.
 */
import { Elysia } from "elysia";
import { newId } from "../../src/ids.ts";
import { stdoutSink } from "../../src/log.ts";
import { SearchRequestBody } from "../../src/research/model.ts";

interface Account {
  id: string;
  perMinute: number;
  tokens: number;
  refilledAt: number;
}

const accounts = new Map<string, Account>([
  [process.env.FLOOR_ENTERPRISE_KEY!, { id: "acct_enterprise", perMinute: 1_000_000, tokens: 1_000_000, refilledAt: Date.now() }],
  [process.env.FLOOR_FREE_KEY!, { id: "acct_free", perMinute: 10, tokens: 10, refilledAt: Date.now() }],
]);

const unauthorized = () =>
  Response.json(
    { detail: "missing or invalid API key", error: "unauthorized" },
    { status: 401, headers: { "www-authenticate": "ApiKey" } },
  );
const limited = () => Response.json({ detail: "rate limited, try again in a minute", error: "rate_limited" }, { status: 429 });

/** A token bucket, refilled by elapsed time: what an in-memory limiter does per check. */
function admit(account: Account): boolean {
  const now = Date.now();
  account.tokens = Math.min(account.perMinute, account.tokens + ((now - account.refilledAt) * account.perMinute) / 60_000);
  account.refilledAt = now;
  if (account.tokens < 1) return false;
  account.tokens -= 1;
  return true;
}

const auth = new Elysia({ name: "floor-auth" }).derive({ as: "scoped" }, ({ request, status }) => {
  const account = accounts.get(request.headers.get("x-api-key") ?? "");
  if (!account) return status(401, unauthorized()) as never;
  if (!admit(account)) return status(429, limited()) as never;
  return { account };
});

const app = new Elysia()
  .get("/healthz", () => ({ status: "ok" }))
  .use(
    new Elysia()
      .use(auth)
      .get("/v1/account", ({ account }) => ({ id: account.id, plan: "enterprise", rate_limit_per_minute: account.perMinute }))
      .get("/v1/keys", ({ account }) => [{ id: "key_floor", account_id: account.id, prefix: "sk_live_floor000", revoked_at: null }])
      .post("/v1/search", () => ({ response: "", context: [], info: { token_usage: 0 } }), { body: SearchRequestBody })
      .get("/v1/ws/search", () => new Response(null, { status: 426 })),
  );

const handle = app.handle.bind(app);
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const started = performance.now();
    const id = newId("req");
    const response = await handle(request);
    response.headers.set("x-request-id", id);
    stdoutSink(
      `{"time":"${new Date().toISOString()}","level":"info","msg":"request","request_id":"${id}","method":"${request.method}","path":${JSON.stringify(new URL(request.url).pathname)},"status":${response.status},"ms":${Math.round((performance.now() - started) * 10) / 10}}`,
    );
    return response;
  },
});
console.log(server.port);
