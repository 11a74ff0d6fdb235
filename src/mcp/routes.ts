/**
 * /mcp: the Model Context Protocol's Streamable HTTP transport, stateless
 * (every POST is answered on its own; nothing is kept between them). The key
 * comes as X-API-Key or as `Authorization: Bearer <key>`, which MCP clients
 * send. Listing tools and initialising spend nothing; each tool call spends
 * one call of the caller's bucket in the route it calls (see server.ts).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Elysia } from "elysia";
import type { Authenticator } from "../http/auth.ts";
import { presentedKey } from "../http/auth.ts";
import { unauthorized } from "../errors.ts";
import { mcpServer, type McpDeps } from "./server.ts";

/** The key an MCP client presents: X-API-Key, else a bearer token. */
function mcpKey(request: Request): string | null {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  return presentedKey(request) ?? bearer ?? null;
}

export function mcpRoutes(authenticator: Authenticator, deps: McpDeps) {
  const handle = async ({ request, body, set }: { request: Request; body: unknown; set: { headers: Record<string, unknown> } }) => {
    const key = mcpKey(request);
    // MCP clients read WWW-Authenticate on a 401 to learn how to authenticate.
    set.headers["www-authenticate"] = 'Bearer realm="mcp"';
    if (key === null) throw unauthorized();
    const caller = await authenticator.byKey(key);
    delete set.headers["www-authenticate"];
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcpServer(deps, { accountId: caller.accountId, key }, request.signal);
    await server.connect(transport);
    return transport.handleRequest(request, request.method === "POST" ? { parsedBody: body } : {});
  };
  // JSON-RPC over HTTP is the MCP specification's to describe, not OpenAPI's: the route stays out of the document.
  const detail = { hide: true };
  return new Elysia().post("/mcp", handle, { detail }).get("/mcp", handle, { detail }).delete("/mcp", handle, { detail });
}
