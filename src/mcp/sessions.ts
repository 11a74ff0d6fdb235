/**
 * The MCP sessions as this instance of a fleet serves them. A session is a
 * record in the shared store (session-store.ts), owned by the account that
 * opened it, so any instance serves any request of it: a POST or a DELETE
 * goes to this instance's server and transport for the session, made and
 * initialised as the client initialised it the first time this instance
 * serves it (runtime.ts); a GET is a stream that follows the session's log
 * (session-stream.ts). A change to an account's tools (a release, a
 * deletion, a subscription) is logged to each of its sessions as
 * notifications/tools/list_changed and reaches their notification streams
 * wherever they are open; a session ended anywhere (its client's DELETE,
 * or closed to make room) ends its streams and its server everywhere.
 *
 * What this instance holds is bounded as the store's sessions are: servers
 * it has not used for the idle bound, or past the total, are let go (the
 * next request makes another).
 */
import type { HandleRequestOptions } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { throttledWarn, type Logger } from "../log.ts";
import { gaugeFrom } from "../observe/metrics.ts";
import { eventIdNumber, SessionEventLog } from "./event-log.ts";
import type { SessionNotice, SessionNotices } from "./session-notices.ts";
import { SESSION_LIMITS, type McpSessionStore, type SessionInit, type SessionLimits, type SessionRecord } from "./session-store.ts";
import { KEEP_ALIVE_MS, NOTIFICATION_STREAM, SessionStream, transportError } from "./session-stream.ts";

/** This instance's server and transport for a session. */
export interface SessionRuntime {
  accountId: string;
  transport: { handleRequest(request: Request, options?: HandleRequestOptions): Promise<Response> };
  close(): Promise<void>;
}

const LIST_CHANGED: JSONRPCMessage = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };

export class McpSessions {
  private readonly runtimes = new Map<string, SessionRuntime & { lastUsed: number }>();
  private readonly making = new Map<string, Promise<SessionRuntime>>();
  private readonly streams = new Map<string, Set<SessionStream>>();
  private readonly warn: (message: string, fields?: Record<string, unknown>) => void;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly unmeasure: (() => void)[];

  constructor(
    readonly store: McpSessionStore,
    private readonly notices: SessionNotices,
    private readonly now: () => number,
    log: Logger,
    private readonly limits: SessionLimits = SESSION_LIMITS,
    private readonly keepAliveMs = KEEP_ALIVE_MS,
  ) {
    this.warn = throttledWarn(log);
    // Read when scraped: the sessions with a stream held here, and those streams, which are server-sent events too.
    this.unmeasure = [
      gaugeFrom("mcp_sessions", () => this.streams.size),
      gaugeFrom("open_streams", () => this.openStreams(), { kind: "sse" }),
    ];
  }

  private openStreams(): number {
    let count = 0;
    for (const streams of this.streams.values()) count += streams.size;
    return count;
  }

  /** Starts hearing the fleet's notices. */
  async start(): Promise<void> {
    this.unlisten = await this.notices.listen({
      heard: (notice) => this.heard(notice),
      // Notices said while this instance was not listening are lost: every stream reads its log again.
      reconnected: () => {
        for (const streams of this.streams.values()) for (const stream of streams) void stream.pump();
      },
    });
  }

  /** A session just initialised here: recorded for the fleet (closing others to make room) with its server held here. */
  async open(id: string, accountId: string, init: SessionInit, runtime: SessionRuntime): Promise<void> {
    const closed = await this.store.open({ id, accountId, init }, this.now());
    for (const gone of closed) await this.ended(gone);
    this.hold(id, runtime);
  }

  /** The session, if the account owns it and it is live; touching it keeps it alive. */
  find(id: string, accountId: string): Promise<SessionRecord | null> {
    return this.store.touch(id, accountId, this.now());
  }

  /** This instance's server for a session, made with `make` the first time it serves the session. */
  async runtime(record: SessionRecord, make: (record: SessionRecord) => Promise<SessionRuntime>): Promise<SessionRuntime> {
    const held = this.runtimes.get(record.id);
    if (held) {
      held.lastUsed = this.now();
      return held;
    }
    let making = this.making.get(record.id);
    if (!making) {
      making = make(record)
        .then((runtime) => {
          this.hold(record.id, runtime);
          return runtime;
        })
        .finally(() => this.making.delete(record.id));
      this.making.set(record.id, making);
    }
    return making;
  }

  /** The log the session's transport writes to. */
  eventLog(sessionId: string): SessionEventLog {
    return new SessionEventLog(sessionId, this.store, this.notices, this.now, this.warn);
  }

  /** Ends a session everywhere: its client said so (DELETE). */
  async end(id: string): Promise<void> {
    await this.store.end(id);
    await this.ended(id);
  }

  /**
   * A GET of a session: its notification stream, or with Last-Event-ID the
   * stream that event belongs to, resumed after it. The SDK's refusals: an
   * event the log no longer holds is a 400; a second notification stream
   * of the session here is a 409.
   */
  async stream(record: SessionRecord, lastEventId: string | null): Promise<Response> {
    if (lastEventId === null) {
      if (this.local(record.id).some((s) => s.notifications))
        return transportError(409, "Conflict: Only one SSE stream is allowed per session");
      return this.follow(record, NOTIFICATION_STREAM, record.lastEvent);
    }
    return this.resume(record, lastEventId);
  }

  /** Logs tools/list_changed to each of the account's sessions; their notification streams write it wherever they are. */
  async toolsChanged(accountId: string): Promise<void> {
    for (const id of await this.store.sessionsOf(accountId, this.now()))
      if ((await this.store.append(id, NOTIFICATION_STREAM, LIST_CHANGED)) !== null) await this.announce({ kind: "event", sessionId: id });
  }

  /** How many of the account's sessions have a notification stream open here. */
  listening(accountId: string): number {
    let count = 0;
    for (const streams of this.streams.values())
      for (const stream of streams) if (stream.accountId === accountId && stream.notifications) count++;
    return count;
  }

  /** Lets go of what this instance holds (its streams end; clients reconnect, to any instance); the sessions live on. */
  closeAll(): void {
    for (const id of [...this.streams.keys()]) this.endStreams(id);
    for (const id of [...this.runtimes.keys()]) this.drop(id);
  }

  async close(): Promise<void> {
    for (const unmeasure of this.unmeasure) unmeasure();
    this.closeAll();
    await this.unlisten?.();
    await this.notices.close();
    await this.store.close();
  }

  private async resume(record: SessionRecord, lastEventId: string): Promise<Response> {
    const from = eventIdNumber(lastEventId);
    const events = from === null ? null : await this.store.eventsFrom(record.id, from, this.now());
    const at = events?.[0];
    if (!at || at.id !== from) return transportError(400, "Invalid event ID format");
    // A reconnect replaces the stream it resumes, should this instance still hold it.
    for (const stream of this.local(record.id)) if (stream.streamId === at.streamId) stream.end();
    return this.follow(record, at.streamId, at.id);
  }

  private follow(record: SessionRecord, streamId: string, cursor: number): Response {
    const stream = new SessionStream({
      sessionId: record.id,
      accountId: record.accountId,
      streamId,
      cursor,
      store: this.store,
      now: this.now,
      keepAliveMs: this.keepAliveMs,
      warn: this.warn,
      ended: (ended) => {
        const streams = this.streams.get(ended.sessionId);
        streams?.delete(ended);
        if (streams?.size === 0) this.streams.delete(ended.sessionId);
      },
    });
    const streams = this.streams.get(record.id) ?? new Set();
    this.streams.set(record.id, streams.add(stream));
    void stream.pump();
    return stream.response;
  }

  private heard(notice: SessionNotice): void {
    if (notice.kind === "ended") {
      this.endStreams(notice.sessionId);
      this.drop(notice.sessionId);
      return;
    }
    for (const stream of this.local(notice.sessionId)) void stream.pump();
  }

  /** A session is gone: here at once, elsewhere when they hear it. */
  private async ended(id: string): Promise<void> {
    this.endStreams(id);
    this.drop(id);
    await this.announce({ kind: "ended", sessionId: id });
  }

  private async announce(notice: SessionNotice): Promise<void> {
    await this.notices.publish(notice).catch((error: unknown) => this.warn("an MCP session notice could not be sent", { error }));
  }

  private hold(id: string, runtime: SessionRuntime): void {
    const now = this.now();
    for (const [held, { lastUsed }] of this.runtimes) if (lastUsed < now - this.limits.idleMs) this.drop(held);
    if (this.runtimes.size >= this.limits.total) {
      const oldest = [...this.runtimes].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest) this.drop(oldest[0]);
    }
    this.runtimes.set(id, Object.assign(runtime, { lastUsed: now }));
  }

  private drop(id: string): void {
    const runtime = this.runtimes.get(id);
    if (!runtime) return;
    this.runtimes.delete(id);
    void runtime.close().catch(() => {});
  }

  private local(sessionId: string): SessionStream[] {
    return [...(this.streams.get(sessionId) ?? [])];
  }

  private endStreams(sessionId: string): void {
    for (const stream of this.local(sessionId)) stream.end();
  }
}
