/**
 * Where the MCP sessions of a fleet live, so any instance serves any of
 * them: who opened each (its account), what its client's initialize said
 * (another instance initialises its own server for the session with it),
 * when it was last used, and its event log: what its streams sent, kept so a
 * client whose connection drops reconnects, to any instance, with
 * Last-Event-ID and receives the rest.
 *
 * Bounded as one process's sessions were: a few per account and so many in
 * all, the least recently used closed first to make room, each forgotten
 * after it has been idle a while; a log keeps its newest events within a
 * count and a size. A client whose session is gone gets a 404 and
 * initialises again, as the protocol says.
 *
 * Stores: Redis or Upstash (redis-session-store.ts), Postgres
 * (postgres-session-store.ts), or this process's memory for the embedded
 * default (memory-session-store.ts). Time is the caller's: each verb takes
 * `now`.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The params of the client's initialize, as far as a server needs them again. */
export interface SessionInit {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string } & Record<string, unknown>;
}

export interface SessionRecord {
  id: string;
  accountId: string;
  init: SessionInit;
  /** The id of the newest event in the session's log (0 before the first): a new stream starts after it. */
  lastEvent: number;
}

/** One event of a session's log. Ids increase within a session; a stream is a request's POST or the GET stream. */
export interface LoggedEvent {
  id: number;
  streamId: string;
  message: JSONRPCMessage;
}

export interface SessionLimits {
  perAccount: number;
  total: number;
  idleMs: number;
}

export interface EventLogLimits {
  events: number;
  bytes: number;
}

// With each session's log at most 512 KB, the sessions of a fleet hold at most about 512 MB of logs.
export const SESSION_LIMITS: SessionLimits = { perAccount: 16, total: 1_000, idleMs: 30 * 60_000 };
export const EVENT_LOG_LIMITS: EventLogLimits = { events: 256, bytes: 512 * 1024 };

export interface McpSessionStore {
  readonly name: "memory" | "redis" | "upstash" | "postgres";
  /** Holds a new session; the ids of the sessions closed to make room (the account's least recently used, then anyone's). */
  open(session: { id: string; accountId: string; init: SessionInit }, now: number): Promise<string[]>;
  /** The session, if the account owns it and it has not idled out; touching it keeps it alive. */
  touch(id: string, accountId: string, now: number): Promise<SessionRecord | null>;
  /** Forgets a session and its log; whether it was there. */
  end(id: string): Promise<boolean>;
  /** The ids of the account's live sessions. */
  sessionsOf(accountId: string, now: number): Promise<string[]>;
  /** Adds a message to the session's log, dropping the oldest past the bounds; its event id, or null when the session is gone. */
  append(sessionId: string, streamId: string, message: JSONRPCMessage): Promise<number | null>;
  /** The session's events from `from` on (every stream's), oldest first; null when the session is gone. */
  eventsFrom(sessionId: string, from: number, now: number): Promise<LoggedEvent[] | null>;
  /** Lets go of its connections. */
  close(): Promise<void>;
}

/** The JSON a stored message is kept as, and its size for the log's bound. */
export function encodeMessage(message: JSONRPCMessage): string {
  return JSON.stringify(message);
}

const INIT_BYTES = 8 * 1024;

/**
 * What is kept of an initialize's params. A client names itself and its
 * capabilities in a few hundred bytes; one that sends more keeps its
 * protocol version and name (this server asks nothing of a client's
 * capabilities), so a session's record stays small whatever the body was.
 */
export function sessionInit(params: Record<string, unknown>): SessionInit {
  const init = {
    protocolVersion: String(params.protocolVersion),
    capabilities: (params.capabilities ?? {}) as Record<string, unknown>,
    clientInfo: (params.clientInfo ?? { name: "", version: "" }) as SessionInit["clientInfo"],
  };
  if (JSON.stringify(init).length <= INIT_BYTES) return init;
  const { name, version } = init.clientInfo;
  return {
    protocolVersion: init.protocolVersion.slice(0, 64),
    capabilities: {},
    clientInfo: { name: String(name).slice(0, 256), version: String(version).slice(0, 64) },
  };
}
