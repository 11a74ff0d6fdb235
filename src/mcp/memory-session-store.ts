/**
 * The sessions in this process's memory: the embedded default, one process
 * on its own database, where nothing else could serve a session anyway.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  encodeMessage,
  EVENT_LOG_LIMITS,
  SESSION_LIMITS,
  type EventLogLimits,
  type LoggedEvent,
  type McpSessionStore,
  type SessionInit,
  type SessionLimits,
  type SessionRecord,
} from "./session-store.ts";

interface Held {
  accountId: string;
  init: SessionInit;
  lastSeen: number;
  seq: number;
  bytes: number;
  events: (LoggedEvent & { bytes: number })[];
}

export class MemorySessionStore implements McpSessionStore {
  readonly name = "memory";
  private readonly sessions = new Map<string, Held>();

  constructor(
    private readonly limits: SessionLimits = SESSION_LIMITS,
    private readonly log: EventLogLimits = EVENT_LOG_LIMITS,
  ) {}

  async open(session: { id: string; accountId: string; init: SessionInit }, now: number): Promise<string[]> {
    this.sweep(now);
    const closed: string[] = [];
    const own = [...this.sessions].filter(([, s]) => s.accountId === session.accountId);
    if (own.length >= this.limits.perAccount) closed.push(this.drop(oldest(own)));
    if (this.sessions.size >= this.limits.total) closed.push(this.drop(oldest([...this.sessions])));
    this.sessions.set(session.id, { accountId: session.accountId, init: session.init, lastSeen: now, seq: 0, bytes: 0, events: [] });
    return closed;
  }

  async touch(id: string, accountId: string, now: number): Promise<SessionRecord | null> {
    const held = this.live(id, now);
    if (!held || held.accountId !== accountId) return null;
    held.lastSeen = now;
    return { id, accountId, init: held.init, lastEvent: held.seq };
  }

  async end(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  async sessionsOf(accountId: string, now: number): Promise<string[]> {
    this.sweep(now);
    return [...this.sessions].filter(([, s]) => s.accountId === accountId).map(([id]) => id);
  }

  async append(sessionId: string, streamId: string, message: JSONRPCMessage): Promise<number | null> {
    const held = this.sessions.get(sessionId);
    if (!held) return null;
    const bytes = encodeMessage(message).length;
    const id = ++held.seq;
    held.events.push({ id, streamId, message, bytes });
    held.bytes += bytes;
    while (held.events.length > this.log.events || (held.bytes > this.log.bytes && held.events.length > 1))
      held.bytes -= held.events.shift()!.bytes;
    return id;
  }

  async eventsFrom(sessionId: string, from: number, now: number): Promise<LoggedEvent[] | null> {
    const held = this.live(sessionId, now);
    if (!held) return null;
    return held.events.filter((e) => e.id >= from).map(({ id, streamId, message }) => ({ id, streamId, message }));
  }

  async close(): Promise<void> {}

  private live(id: string, now: number): Held | null {
    const held = this.sessions.get(id);
    if (!held) return null;
    if (held.lastSeen < now - this.limits.idleMs) {
      this.sessions.delete(id);
      return null;
    }
    return held;
  }

  private sweep(now: number): void {
    for (const [id, held] of this.sessions) if (held.lastSeen < now - this.limits.idleMs) this.sessions.delete(id);
  }

  private drop(id: string): string {
    this.sessions.delete(id);
    return id;
  }
}

function oldest(entries: [string, Held][]): string {
  return entries.sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0]![0];
}
