/**
 * How the instances of a fleet tell each other that something happened to a
 * session: its log has a new event (a stream held elsewhere writes it), or
 * it ended (whoever holds its streams and its server lets them go). A
 * notice names the session only; the log in the store is the truth, so a
 * lost notice delays an event (each stream reads the log again at its
 * keep-alive) and never loses one.
 *
 * Redis pub/sub when REDIS_URL is set (redis-notices.ts); otherwise the
 * database's NOTIFY (Postgres, and Upstash's REST API, which cannot
 * subscribe, is paired with it); in memory for the embedded default. Every
 * instance hears its own notices too.
 */
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "../../db/client.ts";

export interface SessionNotice {
  kind: "event" | "ended";
  sessionId: string;
}

export interface NoticeListener {
  heard(notice: SessionNotice): void;
  /** Listening again after a connection was lost: whatever was said meanwhile went unheard. */
  reconnected(): void;
}

export interface SessionNotices {
  readonly name: "memory" | "redis" | "postgres";
  /** Hears every notice from now on; resolves to the function that stops hearing. */
  listen(listener: NoticeListener): Promise<() => Promise<void>>;
  publish(notice: SessionNotice): Promise<void>;
  /** Lets go of its connections. */
  close(): Promise<void>;
}

/** A notice on the wire: "e:<id>" or "x:<id>", well under NOTIFY's 8,000 bytes. */
export function encodeNotice(notice: SessionNotice): string {
  return `${notice.kind === "event" ? "e" : "x"}:${notice.sessionId}`;
}

export function decodeNotice(payload: string): SessionNotice | null {
  const kind = payload.startsWith("e:") ? "event" : payload.startsWith("x:") ? "ended" : null;
  return kind ? { kind, sessionId: payload.slice(2) } : null;
}

export class MemoryNotices implements SessionNotices {
  readonly name = "memory";
  private readonly listeners = new Set<NoticeListener>();

  async listen(listener: NoticeListener): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    return async () => void this.listeners.delete(listener);
  }

  async publish(notice: SessionNotice): Promise<void> {
    // Heard after the publisher's turn, as a notice from another instance would be.
    queueMicrotask(() => {
      for (const listener of this.listeners) listener.heard(notice);
    });
  }

  async close(): Promise<void> {}
}

const CHANNEL = "mcp_session";

/** Postgres's LISTEN/NOTIFY on the app's database (the account change feed's way, accounts/change-feed.ts). */
export class DatabaseNotices implements SessionNotices {
  readonly name = "postgres";

  constructor(private readonly database: DatabaseHandle) {}

  async listen(listener: NoticeListener): Promise<() => Promise<void>> {
    let connected = false;
    return this.database.listen(
      CHANNEL,
      (payload) => {
        const notice = decodeNotice(payload);
        if (notice) listener.heard(notice);
      },
      () => {
        if (connected) listener.reconnected();
        connected = true;
      },
    );
  }

  async publish(notice: SessionNotice): Promise<void> {
    await this.database.db.execute(sql`select pg_notify(${CHANNEL}, ${encodeNotice(notice)})`);
  }

  /** The database is the app's: closing it is the process's to do. */
  async close(): Promise<void> {}
}
