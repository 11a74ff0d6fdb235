/**
 * This instance's server and transport for a session (the SDK's
 * WebStandardStreamableHTTPServerTransport, its log in the shared store):
 * made by the client's initialize, or, for a session another instance
 * opened, made the first time this one serves it and initialised the way
 * the client initialised it. The SDK has no supported way to bind a
 * transport to a session it did not initialise (its "initialized" flag is
 * private), so it is given the client's own initialize again, from the
 * session's record, and the answer, which the client already has, is
 * dropped: no private field is touched, and the server knows its client as
 * the first one did.
 *
 * Loaded with the SDK, on the first request to /mcp.
 */
import {
  WebStandardStreamableHTTPServerTransport,
  type HandleRequestOptions,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { mcpServer, type McpDeps } from "./server.ts";
import type { McpSessions, SessionRuntime } from "./sessions.ts";
import { sessionInit, type SessionRecord } from "./session-store.ts";
import { transportError } from "./session-stream.ts";

/** Never leaves the process: the URL of the initialize an instance gives its own transport. */
const INTERNAL = "http://mcp.internal/mcp";

/** A POST with no session: the transport accepts only an initialize, which opens the session for the fleet. */
export async function initialize(
  request: Request,
  body: unknown,
  options: HandleRequestOptions,
  deps: McpDeps,
  sessions: McpSessions,
  accountId: string,
): Promise<Response> {
  const id = crypto.randomUUID();
  const server = mcpServer(deps, accountId);
  let opened = false;
  let failure: { error: unknown } | undefined;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    // A dropped stream resumes with Last-Event-ID, on any instance: a long search's answer is not lost with the connection.
    eventStore: sessions.eventLog(id),
    onsessioninitialized: async (sid) => {
      // The transport calls this only for a valid initialize, alone in its body.
      const message = (Array.isArray(body) ? body[0] : body) as { params: Record<string, unknown> };
      try {
        await sessions.open(sid, accountId, sessionInit(message.params), runtimeOf(accountId, server, transport));
        opened = true;
      } catch (error) {
        failure = { error };
        throw error;
      }
    },
    onsessionclosed: (sid) => sessions.end(sid),
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request, options);
  // No session was made (not an initialize, or refused): nothing will use this server again.
  if (!opened) await server.close();
  // The transport answers a failed callback as a parse error; the store's failure is ours, a 500.
  if (failure) throw failure.error;
  return response;
}

/** This instance's server for a session another instance opened, initialised as its client initialised it. */
export async function rejoin(record: SessionRecord, deps: McpDeps, sessions: McpSessions): Promise<SessionRuntime> {
  const server = mcpServer(deps, record.accountId);
  const log = sessions.eventLog(record.id);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => record.id,
    eventStore: log,
    onsessionclosed: (sid) => sessions.end(sid),
  });
  await server.connect(transport);
  const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: record.init };
  // Nothing of this exchange is the client's: none of it is logged.
  log.quiet = true;
  try {
    const answer = await transport.handleRequest(
      new Request(INTERNAL, {
        method: "POST",
        headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      }),
      { parsedBody: initialize },
    );
    const text = await answer.text();
    if (answer.status !== 200 || !text.includes('"result"')) throw new Error(`the session's initialize was refused: ${answer.status}`);
  } catch (error) {
    await server.close();
    throw error;
  } finally {
    log.quiet = false;
  }
  return runtimeOf(record.accountId, server, transport);
}

/** The SDK's checks of a GET before it streams, in its words. */
export function streamRefusal(request: Request): Response | null {
  if (!request.headers.get("accept")?.includes("text/event-stream"))
    return transportError(406, "Not Acceptable: Client must accept text/event-stream");
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    return transportError(
      400,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  return null;
}

function runtimeOf(
  accountId: string,
  server: ReturnType<typeof mcpServer>,
  transport: WebStandardStreamableHTTPServerTransport,
): SessionRuntime {
  return { accountId, transport, close: () => server.close() };
}
