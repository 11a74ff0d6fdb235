/**
 * A session's stream as a GET serves it, on whichever instance the client
 * reached: its notification stream, or with Last-Event-ID any of its
 * streams resumed after that event, a request's stream included while the
 * request still runs on another instance. It writes what the session's log
 * holds after its cursor, then each new event of its stream as notices say
 * the log grew (and at each keep-alive, in case a notice was lost), and it
 * ends a request's stream with the request's answer.
 *
 * Its headers leave at once: the first bytes (a comment) are written as it
 * opens, where a stream with nothing to say yet would otherwise keep the
 * client waiting for its first keep-alive.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isPriming } from "./event-log.ts";
import type { McpSessionStore } from "./session-store.ts";

/** The SDK's name for a session's notification stream (its standalone GET stream), in the log as in the transport. */
export const NOTIFICATION_STREAM = "_GET_stream";

/** The SDK's keep-alive period and frame. */
export const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE = ": keepalive\n\n";
const OPENED = ": stream open\n\n";

/** A refusal in the transport's words: the SDK's JSON-RPC error with a null id (code -32000 unless said). */
export function transportError(status: number, message: string, code = -32000): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

export interface StreamOptions {
  sessionId: string;
  accountId: string;
  streamId: string;
  /** The id of the last event the client has: the stream writes those after it. */
  cursor: number;
  store: McpSessionStore;
  now: () => number;
  keepAliveMs: number;
  warn: (message: string, fields: Record<string, unknown>) => void;
  /** Called once, when the stream has ended for any reason. */
  ended: (stream: SessionStream) => void;
}

export class SessionStream {
  readonly response: Response;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private readonly timer: ReturnType<typeof setInterval>;
  private cursor: number;
  private done = false;
  private pumping = false;
  private again = false;

  constructor(private readonly options: StreamOptions) {
    this.cursor = options.cursor;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
        controller.enqueue(this.encoder.encode(OPENED));
      },
      cancel: () => this.end(),
    });
    this.response = new Response(body, { headers: { ...SSE_HEADERS, "mcp-session-id": options.sessionId } });
    this.timer = setInterval(() => {
      if (this.write(KEEP_ALIVE)) void this.pump();
    }, options.keepAliveMs);
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  get accountId(): string {
    return this.options.accountId;
  }

  get streamId(): string {
    return this.options.streamId;
  }

  get notifications(): boolean {
    return this.options.streamId === NOTIFICATION_STREAM;
  }

  /** Writes the log's new events of this stream; runs once at a time, again if asked meanwhile. */
  async pump(): Promise<void> {
    if (this.done) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        const events = await this.options.store.eventsFrom(this.options.sessionId, this.cursor + 1, this.options.now());
        if (events === null) return this.end();
        for (const event of events) {
          this.cursor = event.id;
          if (event.streamId !== this.options.streamId || isPriming(event.message)) continue;
          this.write(`event: message\nid: ${event.id}\ndata: ${JSON.stringify(event.message)}\n\n`);
          // A client sends one request per POST (the protocol has no batches since 2025-06-18): its answer ends the stream.
          if (!this.notifications && isResponse(event.message)) return this.end();
        }
      } while (this.again && !this.done);
    } catch (error) {
      this.options.warn("an MCP session stream could not read its log; it tries again at its next keep-alive", { error });
    } finally {
      this.pumping = false;
    }
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.timer);
    try {
      this.controller.close();
    } catch {
      // The client cancelled it: already closed.
    }
    this.options.ended(this);
  }

  private write(text: string): boolean {
    if (this.done) return false;
    try {
      this.controller.enqueue(this.encoder.encode(text));
      return true;
    } catch {
      this.end();
      return false;
    }
  }
}

function isResponse(message: JSONRPCMessage): boolean {
  return "id" in message && ("result" in message || "error" in message);
}
