/**
 * MCP sessions held by this process: one server and transport per session,
 * owned by the account that opened it, so a change to that account's tools
 * (a release, a deletion, a subscription) reaches its open clients as
 * notifications/tools/list_changed. Bounded: a few sessions per account and
 * in all, each dropped after it has been idle a while; a client whose
 * session is gone gets a 404 and initialises again, as the protocol says.
 *
 * Sessions live in one process: behind a load balancer, a change made on
 * another instance is not announced here (clients still see it at their next
 * tools/list).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

export interface McpSession {
  accountId: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** Whether the client has opened the GET stream that notifications travel on. */
  listening: boolean;
}

export interface SessionLimits {
  perAccount: number;
  total: number;
  idleMs: number;
}

// With each session's event log (event-log.ts) at most 512 KB, the sessions of one process hold at most about 512 MB.
export const SESSION_LIMITS: SessionLimits = { perAccount: 16, total: 1_000, idleMs: 30 * 60_000 };

export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();

  constructor(
    private readonly now: () => number,
    private readonly limits: SessionLimits = SESSION_LIMITS,
  ) {}

  /** The session by its id, if the account owns it; touching it keeps it alive. */
  find(id: string, accountId: string): McpSession | null {
    this.sweep();
    const session = this.sessions.get(id);
    if (!session || session.accountId !== accountId) return null;
    session.lastSeen = this.now();
    return session;
  }

  /** Holds a new session, making room by closing the account's (then anyone's) least recently used. */
  add(id: string, session: McpSession): void {
    this.sweep();
    const own = [...this.sessions.entries()].filter(([, s]) => s.accountId === session.accountId);
    if (own.length >= this.limits.perAccount) this.close(oldest(own));
    if (this.sessions.size >= this.limits.total) this.close(oldest([...this.sessions.entries()]));
    this.sessions.set(id, session);
  }

  close(id: string | undefined): void {
    if (id === undefined) return;
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    void session.server.close().catch(() => {});
  }

  /** Tells each open session of the account that its tools changed. */
  toolsChanged(accountId: string): void {
    for (const session of this.sessions.values())
      if (session.accountId === accountId) void session.server.sendToolListChanged().catch(() => {});
  }

  /** How many of the account's sessions have a notification stream open. */
  listening(accountId: string): number {
    return [...this.sessions.values()].filter((s) => s.accountId === accountId && s.listening).length;
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.close(id);
  }

  private sweep(): void {
    const cutoff = this.now() - this.limits.idleMs;
    for (const [id, session] of this.sessions) if (session.lastSeen < cutoff) this.close(id);
  }
}

function oldest(entries: [string, McpSession][]): string | undefined {
  return entries.sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0]?.[0];
}
