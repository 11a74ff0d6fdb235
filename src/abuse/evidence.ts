/**
 * A breached window turned into a flag's contents: which Free accounts, how
 * many calls each, and the evidence (keyed addresses and work fingerprints
 * with their counts, the span of time, the threshold passed). For an
 * address, only the accounts that shared work with another are named: an
 * office mate doing their own work behind the same address is not.
 */
import { partsOf, sharedWork, type Breach, type SubjectKind } from "./windows.ts";

export interface FlagEvidence {
  addresses: { hash: string; calls: number }[];
  fingerprints: { fingerprint: string; calls: number }[];
  first_at: string;
  last_at: string;
  /** The window's calls passed this (the Free limit over the window). */
  threshold: number;
  min_accounts: number;
}

export interface FlagContents {
  kind: SubjectKind;
  subject: string;
  windowSeconds: number;
  calls: number;
  accounts: { account_id: string; calls: number }[];
  evidence: FlagEvidence;
}

/** Counts by value, largest first (ties by value, so a flag reads the same on every backend). */
function tally(values: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export function flagContents(breach: Breach, settings: { threshold: number; minAccounts: number }): FlagContents {
  const calls = breach.entries.map((e) => partsOf(e.member));
  const named = breach.kind === "address" ? sharedWork(breach.entries).accounts : new Set(calls.map((c) => c.account));
  const others = tally(calls.map((c) => c.other).filter(Boolean));
  const times = breach.entries.map((e) => e.at);
  return {
    kind: breach.kind,
    subject: breach.subject,
    windowSeconds: Math.round(breach.windowMs / 1000),
    calls: calls.length,
    accounts: tally(calls.map((c) => c.account).filter((a) => named.has(a))).map(([account_id, n]) => ({ account_id, calls: n })),
    evidence: {
      addresses:
        breach.kind === "address" ? [{ hash: breach.subject, calls: calls.length }] : others.map(([hash, n]) => ({ hash, calls: n })),
      fingerprints:
        breach.kind === "work"
          ? [{ fingerprint: breach.subject, calls: calls.length }]
          : others.map(([fingerprint, n]) => ({ fingerprint, calls: n })),
      first_at: new Date(Math.min(...times)).toISOString(),
      last_at: new Date(Math.max(...times)).toISOString(),
      threshold: settings.threshold,
      min_accounts: settings.minAccounts,
    },
  };
}
