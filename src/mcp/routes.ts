/**
 * /mcp: the Model Context Protocol's Streamable HTTP transport. An initialize
 * opens a session (Mcp-Session-Id) that every instance of the fleet serves
 * (sessions.ts): its GET stream carries notifications/tools/list_changed
 * when the account's tools change, wherever the change was made. The key
 * comes with every request, as X-API-Key or as
 * `Authorization: Bearer <key>` (what MCP clients send); a session is only
 * ever reached with a key of the account that opened it. Listing tools and
 * initialising spend nothing; each tool call spends one call of the caller's
 * bucket in the route it calls (see server.ts).
 */
import { Elysia } from "elysia";
import type { Authenticator } from "../http/auth.ts";
import { presentedKey } from "../http/auth.ts";
import { clientAddress, type ClientAddressSettings, type PeerSource } from "../http/client-address.ts";
import { requestMeta } from "../http/request-context.ts";
import { unauthorized } from "../errors.ts";
import type { McpDeps } from "./server.ts";
import type { McpSessions } from "./sessions.ts";
import { transportError } from "./session-stream.ts";

// The SDK (and zod with it) takes a few hundred milliseconds to load: a process that never serves /mcp never pays.
let sdk: Promise<typeof import("./runtime.ts")> | null = null;
const loadSdk = () => (sdk ??= import("./runtime.ts"));

/** The key an MCP client presents: X-API-Key, else a bearer token. */
const mcpKey = (request: Request) => presentedKey(request, true);

const SESSION_ID = /^[0-9a-f-]{36}$/;

/** What the protocol answers, on every instance, for a session that is not (or no longer) live: the client initialises again. */
const sessionGone = () => transportError(404, "session not found; initialize again", -32001);

interface McpRequest {
  request: Request;
  body: unknown;
  set: { headers: Record<string, unknown> };
  server: PeerSource;
}

export function mcpRoutes(authenticator: Authenticator, deps: McpDeps, sessions: McpSessions, addresses: ClientAddressSettings) {
  const handle = async ({ request, body, set, server }: McpRequest) => {
    const key = mcpKey(request);
    // MCP clients read WWW-Authenticate on a 401 to learn how to authenticate.
    set.headers["www-authenticate"] = 'Bearer realm="mcp"';
    if (key === null) throw unauthorized();
    const caller = await authenticator.byKey(key);
    delete set.headers["www-authenticate"];
    const runtime = await loadSdk();
    const options = {
      ...(request.method === "POST" ? { parsedBody: body } : {}),
      // A tool call is made with the key that made it, and counted from the client's address (server.ts).
      authInfo: {
        token: key,
        clientId: caller.accountId,
        scopes: [],
        // A tool call's in-process request continues this request's trace (its span is a child of this one's).
        extra: { clientAddress: clientAddress(request, server, addresses), traceparent: requestMeta(request).span.traceparent() },
      },
    };
    const id = request.headers.get("mcp-session-id");
    if (id === null) return runtime.initialize(request, body, options, deps, sessions, caller.accountId);
    const session = SESSION_ID.test(id) ? await sessions.find(id, caller.accountId) : null;
    if (!session) return sessionGone();
    if (request.method === "GET") return runtime.streamRefusal(request) ?? sessions.stream(session, request.headers.get("last-event-id"));
    const held = await sessions.runtime(session, (record) => runtime.rejoin(record, deps, sessions));
    return held.transport.handleRequest(request, options);
  };
  // JSON-RPC over HTTP is the MCP specification's to describe, not OpenAPI's: the route stays out of the document.
  const detail = { hide: true };
  return new Elysia().post("/mcp", handle, { detail }).get("/mcp", handle, { detail }).delete("/mcp", handle, { detail });
}
