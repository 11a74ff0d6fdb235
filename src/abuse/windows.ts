/**
 * The sliding windows, as pure rules: the in-memory store runs these, and
 * the Redis script (window-script.ts) is the same steps in Lua.
 *
 * Each subject (a keyed address, a work fingerprint) has one sorted set of
 * its recent Free calls: member `account|other|unique`, score the time in
 * ms, where `other` is the call's fingerprint in an address's set and its
 * keyed address in a fingerprint's set (empty when unknown). A set keeps the
 * longest window's calls, at most `cap` of them (the newest), and expires
 * with that window: memory is bounded by the subjects active in it.
 *
 * A window is breached when its calls pass the Free limit over it (10 a
 * minute: more than 10 in 60 s, more than 100 in 600 s) and:
 * - work: they come from at least `minAccounts` distinct accounts;
 * - address: at least half of them carry work that two or more of the
 *   address's accounts share, and at least `minAccounts` accounts took part
 *   in that shared work. Many accounts behind one address (an office, a
 *   university, a carrier's NAT) doing their own work is never enough.
 */
export type SubjectKind = "address" | "work";

export interface WindowSettings {
  /** Ascending. */
  windowsMs: readonly number[];
  /** Per window: a breach needs more calls than this. */
  thresholds: readonly number[];
  /** Most calls a subject's set keeps. */
  cap: number;
  minAccounts: number;
}

/** One call seen under one subject. */
export interface Sighting {
  kind: SubjectKind;
  /** The keyed address or the fingerprint: what a flag names. */
  subject: string;
  /** The subject's set key (its flag markers are `<key>:flagged:<window ms>`). */
  key: string;
  member: string;
}

export interface Entry {
  member: string;
  at: number;
}

/** A window newly breached by a subject: its calls in that window, oldest first. */
export interface Breach {
  kind: SubjectKind;
  subject: string;
  key: string;
  windowMs: number;
  entries: Entry[];
}

/** Windows from ABUSE_WINDOWS_SECONDS, each with the Free limit over it; the cap keeps 4× the longest's threshold. */
export function windowSettings(windowsSeconds: readonly number[], freePerMinute: number, minAccounts: number): WindowSettings {
  const windowsMs = [...windowsSeconds].sort((a, b) => a - b).map((s) => s * 1000);
  const thresholds = windowsMs.map((ms) => Math.ceil((freePerMinute * ms) / 60_000));
  return { windowsMs, thresholds, cap: Math.max(50, 4 * Math.max(...thresholds)), minAccounts };
}

export const markerKey = (key: string, windowMs: number) => `${key}:flagged:${windowMs}`;

export function memberOf(account: string, other: string, unique: string): string {
  return `${account}|${other}|${unique}`;
}

/**
 * One call's sightings: under its address and under its work, each where it is known, and each
 * member naming the other subject (so a window can tell shared work from an office's own).
 */
export function sightingsOf(keyPrefix: string, call: { account: string; address: string; work: string }, unique: string): Sighting[] {
  const sightings: Sighting[] = [];
  for (const [kind, subject, other] of [
    ["address", call.address, call.work],
    ["work", call.work, call.address],
  ] as const) {
    if (subject) sightings.push({ kind, subject, key: `${keyPrefix}${kind}:${subject}`, member: memberOf(call.account, other, unique) });
  }
  return sightings;
}

export function partsOf(member: string): { account: string; other: string } {
  const [account = "", other = ""] = member.split("|", 2);
  return { account, other };
}

/** Whether a window's calls (already past its threshold) breach the subject's rule. */
export function breached(kind: SubjectKind, entries: readonly Entry[], minAccounts: number): boolean {
  const accounts = new Set(entries.map((e) => partsOf(e.member).account));
  if (accounts.size < minAccounts) return false;
  if (kind === "work") return true;
  const shared = sharedWork(entries);
  return shared.calls * 2 >= entries.length && shared.accounts.size >= minAccounts;
}

/** Of an address's calls: those whose work two or more of its accounts share, and the accounts that made them. */
export function sharedWork(entries: readonly Entry[]): { calls: number; accounts: Set<string> } {
  const users = new Map<string, Set<string>>();
  for (const e of entries) {
    const { account, other } = partsOf(e.member);
    if (!other) continue;
    let seen = users.get(other);
    if (!seen) users.set(other, (seen = new Set()));
    seen.add(account);
  }
  let calls = 0;
  const accounts = new Set<string>();
  for (const e of entries) {
    const { account, other } = partsOf(e.member);
    if (other && users.get(other)!.size >= 2) {
      calls++;
      accounts.add(account);
    }
  }
  return { calls, accounts };
}
