/**
 * The sessions in Postgres, for a fleet without Redis: tables mcp_sessions
 * and mcp_session_events (db/schema.ts). Opening a session takes a
 * transaction-scoped advisory lock, so instances opening sessions at once
 * keep the bounds; everything else is a statement or two. Idle sessions are
 * deleted by the next open (their logs with them) and never found meanwhile.
 */
import { and, asc, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isForeignKeyViolation, type Database } from "../../db/client.ts";
import { mcpSessionEvents, mcpSessions } from "../../db/schema.ts";
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

const OPEN_LOCK = 7_143_820_443; // any constant shared by every instance, apart from the other advisory locks

export class PostgresSessionStore implements McpSessionStore {
  readonly name = "postgres";

  constructor(
    private readonly db: Database,
    private readonly limits: SessionLimits = SESSION_LIMITS,
    private readonly log: EventLogLimits = EVENT_LOG_LIMITS,
  ) {}

  async open(session: { id: string; accountId: string; init: SessionInit }, now: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${OPEN_LOCK})`);
      await tx.delete(mcpSessions).where(lt(mcpSessions.lastSeenAt, this.cutoff(now)));
      const own = await tx
        .select({ id: mcpSessions.id })
        .from(mcpSessions)
        .where(eq(mcpSessions.accountId, session.accountId))
        .orderBy(desc(mcpSessions.lastSeenAt));
      const closed = own.slice(this.limits.perAccount - 1).map((s) => s.id);
      if (closed.length) await tx.delete(mcpSessions).where(inArray(mcpSessions.id, closed));
      const [{ count }] = (await tx.select({ count: sql<number>`count(*)::int` }).from(mcpSessions)) as [{ count: number }];
      if (count >= this.limits.total) {
        const oldest = await tx
          .delete(mcpSessions)
          .where(
            inArray(
              mcpSessions.id,
              tx
                .select({ id: mcpSessions.id })
                .from(mcpSessions)
                .orderBy(asc(mcpSessions.lastSeenAt))
                .limit(count - this.limits.total + 1),
            ),
          )
          .returning({ id: mcpSessions.id });
        closed.push(...oldest.map((s) => s.id));
      }
      await tx.insert(mcpSessions).values({
        id: session.id,
        accountId: session.accountId,
        init: JSON.stringify(session.init),
        lastSeenAt: new Date(now),
      });
      return closed;
    });
  }

  async touch(id: string, accountId: string, now: number): Promise<SessionRecord | null> {
    const [row] = await this.db
      .update(mcpSessions)
      .set({ lastSeenAt: new Date(now) })
      .where(and(eq(mcpSessions.id, id), eq(mcpSessions.accountId, accountId), gte(mcpSessions.lastSeenAt, this.cutoff(now))))
      .returning({
        init: mcpSessions.init,
        lastEvent: sql<string>`(select coalesce(max(${mcpSessionEvents.id}), 0) from ${mcpSessionEvents} where ${mcpSessionEvents.sessionId} = ${id})`,
      });
    if (!row) return null;
    return { id, accountId, init: JSON.parse(row.init) as SessionInit, lastEvent: Number(row.lastEvent) };
  }

  async end(id: string): Promise<boolean> {
    const gone = await this.db.delete(mcpSessions).where(eq(mcpSessions.id, id)).returning({ id: mcpSessions.id });
    return gone.length > 0;
  }

  async sessionsOf(accountId: string, now: number): Promise<string[]> {
    const rows = await this.db
      .select({ id: mcpSessions.id })
      .from(mcpSessions)
      .where(and(eq(mcpSessions.accountId, accountId), gte(mcpSessions.lastSeenAt, this.cutoff(now))));
    return rows.map((r) => r.id);
  }

  async append(sessionId: string, streamId: string, message: JSONRPCMessage): Promise<number | null> {
    let id: number;
    try {
      const [row] = await this.db
        .insert(mcpSessionEvents)
        .values({ sessionId, streamId, message: encodeMessage(message) })
        .returning({ id: mcpSessionEvents.id });
      id = row!.id;
    } catch (error) {
      if (isForeignKeyViolation(error)) return null;
      throw error;
    }
    // The newest first, counted and summed: whatever lies past either bound goes, but never the newest.
    await this.db.execute(sql`
      delete from ${mcpSessionEvents} where ${mcpSessionEvents.id} in (
        select id from (
          select id, row_number() over newest as n, sum(octet_length(message)) over newest as total
          from ${mcpSessionEvents} where ${mcpSessionEvents.sessionId} = ${sessionId}
          window newest as (order by id desc)
        ) ranked
        where n > 1 and (n > ${this.log.events} or total > ${this.log.bytes}))`);
    return id;
  }

  async eventsFrom(sessionId: string, from: number, now: number): Promise<LoggedEvent[] | null> {
    const [alive] = await this.db
      .select({ id: mcpSessions.id })
      .from(mcpSessions)
      .where(and(eq(mcpSessions.id, sessionId), gte(mcpSessions.lastSeenAt, this.cutoff(now))));
    if (!alive) return null;
    const rows = await this.db
      .select({ id: mcpSessionEvents.id, streamId: mcpSessionEvents.streamId, message: mcpSessionEvents.message })
      .from(mcpSessionEvents)
      .where(and(eq(mcpSessionEvents.sessionId, sessionId), gte(mcpSessionEvents.id, from)))
      .orderBy(asc(mcpSessionEvents.id));
    return rows.map((r) => ({ id: r.id, streamId: r.streamId, message: JSON.parse(r.message) as JSONRPCMessage }));
  }

  /** The database is the app's: closing it is the process's to do. */
  async close(): Promise<void> {}

  private cutoff(now: number): Date {
    return new Date(now - this.limits.idleMs);
  }
}
