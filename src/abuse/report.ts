/**
 * `cli abuse report`: the flags raised over a recent stretch, newest first,
 * as text for a person or JSON for a program. Flags past the retention are
 * deleted first, so a report never shows what should be gone.
 */
import type { Database } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { evidenceOf, flagsSince, forgetFlagsBefore, type FlagRow } from "./flags.ts";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30m", "1h", "2d" (also s and w) in milliseconds; null when it is not one. */
export function parseSince(text: string): number | null {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNITS[match[2]!]!;
}

export async function abuseReport(db: Database, clock: Clock, input: { sinceMs: number; retentionDays: number }): Promise<FlagRow[]> {
  const now = clock.now();
  await forgetFlagsBefore(db, new Date(now - input.retentionDays * 86_400_000));
  return flagsSince(db, new Date(now - input.sinceMs));
}

/** A flag as `--json` prints it: the row's columns in the wire's snake_case. */
export function flagJson(row: FlagRow) {
  return {
    id: row.id,
    kind: row.kind,
    subject: row.subject,
    window_seconds: row.windowSeconds,
    calls: row.calls,
    accounts: row.accounts,
    evidence: row.evidence,
    action: row.action,
    created_at: row.createdAt.toISOString(),
  };
}

const counted = (items: { name: string; calls: number }[]) =>
  items.length ? items.map((i) => `${i.name} (${i.calls})`).join(", ") : "none known";

/** A flag as a few lines of text. */
export function flagLines(row: FlagRow): string[] {
  const evidence = evidenceOf(row);
  return [
    `${row.id}  ${row.createdAt.toISOString()}  ${row.kind}  ${row.calls} calls in ${row.windowSeconds}s (over ${evidence.threshold})  ${row.accounts.length} accounts  action ${row.action}`,
    `  subject       ${row.subject}`,
    `  accounts      ${counted(row.accounts.map((a) => ({ name: a.account_id, calls: a.calls })))}`,
    `  addresses     ${counted(evidence.addresses.map((a) => ({ name: a.hash, calls: a.calls })))}`,
    `  fingerprints  ${counted(evidence.fingerprints.map((f) => ({ name: f.fingerprint, calls: f.calls })))}`,
    `  calls from    ${evidence.first_at} to ${evidence.last_at}`,
  ];
}
