/** /mcp spoken by hand, for the tests that cut a stream or send what the SDK's client never would. */
import type { TestApp } from "./app.ts";

export interface SseEvent {
  id?: string;
  data: string;
}

/** Reads SSE events off a response until `until` accepts one (or the stream ends); the reader is left for the caller to cancel. */
export async function readEvents(response: Response, until: (e: SseEvent) => boolean) {
  const reader = response.body!.getReader();
  const events: SseEvent[] = [];
  let buffer = "";
  while (!events.some(until)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += new TextDecoder().decode(value);
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join("\n");
      // A comment (": keepalive") is no event.
      if (id === undefined && !/^data:/m.test(block)) continue;
      events.push({ ...(id ? { id } : {}), data });
    }
  }
  return { events, reader };
}

/** The headers of a request in a session (none yet: an initialize). */
export function mcpHeaders(apiKey: string, session?: string): Record<string, string> {
  return {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
    ...(session ? { "mcp-session-id": session } : {}),
  };
}

/** Initialises a session on `app` as a client would (initialize, then notifications/initialized); its id. */
export async function openSession(app: TestApp, apiKey: string, name = "by-hand"): Promise<string> {
  const init = await app.fetch("/mcp", {
    method: "POST",
    headers: mcpHeaders(apiKey),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1.0.0" } },
    }),
  });
  const session = init.headers.get("mcp-session-id")!;
  await readEvents(init, (e) => e.data.includes('"id":1')).then(({ reader }) => reader.cancel());
  await app.fetch("/mcp", {
    method: "POST",
    headers: mcpHeaders(apiKey, session),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  return session;
}

/** One JSON-RPC message POSTed in a session; the response, unread. */
export function mcpPost(app: TestApp, apiKey: string, session: string, message: Record<string, unknown>): Promise<Response> {
  return app.fetch("/mcp", { method: "POST", headers: mcpHeaders(apiKey, session), body: JSON.stringify({ jsonrpc: "2.0", ...message }) });
}
