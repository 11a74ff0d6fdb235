/**
 * Dashboard sessions: a random token in an HttpOnly cookie (only its
 * SHA-256 is stored), a per-session CSRF token every request must echo in a
 * header, a fixed lifetime, and a last-seen time written at most every few
 * minutes rather than on every request.
 */
import { and, eq, gt } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts, sessions } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { newId } from "../ids.ts";
import type { AccountsContext } from "./context.ts";

const TOUCH_INTERVAL_MS = 5 * 60_000;

function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

async function sha256(text: string): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).toString("hex");
}

export interface NewSession {
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

export async function startSession(db: Database, clock: Clock, accountId: string, lifetimeMs: number): Promise<NewSession> {
  const token = randomToken();
  const csrfToken = randomToken(24);
  const now = clock.now();
  const expiresAt = new Date(now + lifetimeMs);
  await db
    .insert(sessions)
    .values({ id: newId("sess"), accountId, tokenHash: await sha256(token), csrfToken, expiresAt, lastSeenAt: new Date(now) });
  return { token, csrfToken, expiresAt };
}

export type SessionRow = typeof sessions.$inferSelect;
export type SessionAccount = typeof accounts.$inferSelect;

/** The live session behind a cookie token, with its account; null when unknown or expired. */
export async function findSession(ctx: AccountsContext, token: string): Promise<{ session: SessionRow; account: SessionAccount } | null> {
  const { db, clock } = ctx;
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const now = new Date(clock.now());
  const rows = await db
    .select({ session: sessions, account: accounts })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(and(eq(sessions.tokenHash, await sha256(token)), gt(sessions.expiresAt, now)))
    .limit(1);
  const found = rows[0];
  if (!found) return null;
  if (now.getTime() - found.session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
    // Best effort: the request goes on, but a failing stamp is reported.
    const stamp = db
      .update(sessions)
      .set({ lastSeenAt: now })
      .where(eq(sessions.id, found.session.id))
      .catch((error: unknown) => ctx.warn?.("session last-seen stamp failed", { account_id: found.account.id, error }));
    ctx.background?.run(stamp);
  }
  return found;
}

export async function endSession(db: Database, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, await sha256(token)));
}
