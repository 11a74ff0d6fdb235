/**
 * The abuse_flags table: a flag per breached window, kept ABUSE_RETENTION_DAYS.
 * Flags belong to the operator, not to an account: no owner filter here.
 */
import { desc, gte, lt } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { abuseFlags } from "../../db/schema.ts";
import { newId } from "../ids.ts";
import type { FlagContents, FlagEvidence } from "./evidence.ts";

export type AbuseAction = "report" | "throttle" | "suspend";
export type FlagRow = typeof abuseFlags.$inferSelect;

export async function insertFlag(db: Database, contents: FlagContents, action: AbuseAction, at: Date): Promise<FlagRow> {
  const [row] = await db
    .insert(abuseFlags)
    .values({
      id: newId("abf", at.getTime()),
      kind: contents.kind,
      subject: contents.subject,
      windowSeconds: contents.windowSeconds,
      calls: contents.calls,
      accounts: contents.accounts,
      evidence: contents.evidence as unknown as Record<string, unknown>,
      action,
      createdAt: at,
    })
    .returning();
  return row!;
}

/** Deletes the flags older than the retention; returns how many went. */
export async function forgetFlagsBefore(db: Database, before: Date): Promise<number> {
  const gone = await db.delete(abuseFlags).where(lt(abuseFlags.createdAt, before)).returning({ id: abuseFlags.id });
  return gone.length;
}

/** Flags raised since `since`, newest first. */
export async function flagsSince(db: Database, since: Date, limit = 1_000): Promise<FlagRow[]> {
  return db
    .select()
    .from(abuseFlags)
    .where(gte(abuseFlags.createdAt, since))
    .orderBy(desc(abuseFlags.createdAt), desc(abuseFlags.id))
    .limit(limit);
}

export const evidenceOf = (row: FlagRow) => row.evidence as unknown as FlagEvidence;
