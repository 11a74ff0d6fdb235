import { breached, markerKey, type Breach, type Entry, type Sighting, type WindowSettings } from "./windows.ts";
import type { WindowStore } from "./window-store.ts";

/** The windows in this process: the embedded default (no Redis configured), the same steps as the Redis script. */
export class MemoryWindows implements WindowStore {
  readonly name = "memory" as const;
  private readonly sets = new Map<string, { entries: Entry[]; expiresAt: number }>();
  private readonly markers = new Map<string, number>();
  private records = 0;

  constructor(private readonly settings: WindowSettings) {}

  async record(sightings: readonly Sighting[], now: number): Promise<Breach[]> {
    const { windowsMs, thresholds, cap, minAccounts } = this.settings;
    const longest = windowsMs.at(-1)!;
    if (++this.records % 1024 === 0) this.sweep(now);
    const breaches: Breach[] = [];
    for (const sighting of sightings) {
      let set = this.sets.get(sighting.key);
      if (!set || set.expiresAt <= now) this.sets.set(sighting.key, (set = { entries: [], expiresAt: 0 }));
      insertByTime(set.entries, { member: sighting.member, at: now });
      const keepFrom = set.entries.findIndex((e) => e.at > now - longest);
      set.entries.splice(0, keepFrom < 0 ? set.entries.length : keepFrom);
      if (set.entries.length > cap) set.entries.splice(0, set.entries.length - cap);
      set.expiresAt = now + longest;
      windowsMs.forEach((windowMs, i) => {
        const inWindow = set.entries.filter((e) => e.at > now - windowMs);
        const marker = markerKey(sighting.key, windowMs);
        if (inWindow.length <= thresholds[i]! || (this.markers.get(marker) ?? 0) > now) return;
        if (!breached(sighting.kind, inWindow, minAccounts)) return;
        this.markers.set(marker, now + windowMs);
        breaches.push({ kind: sighting.kind, subject: sighting.subject, key: sighting.key, windowMs, entries: inWindow });
      });
    }
    return breaches;
  }

  /** How many calls a subject's set holds now (tests read it to see the bounds). */
  size(key: string): number {
    return this.sets.get(key)?.entries.length ?? 0;
  }

  /** Sets and markers past their expiry carry nothing: drop them so memory stays bounded by active subjects. */
  private sweep(now: number): void {
    for (const [key, set] of this.sets) if (set.expiresAt <= now) this.sets.delete(key);
    for (const [key, until] of this.markers) if (until <= now) this.markers.delete(key);
  }

  async close(): Promise<void> {
    this.sets.clear();
    this.markers.clear();
  }
}

/** Sorted by time as Redis's sorted set is (a clock that steps back puts a call before later ones). */
function insertByTime(entries: Entry[], entry: Entry): void {
  let at = entries.length;
  while (at > 0 && entries[at - 1]!.at > entry.at) at--;
  entries.splice(at, 0, entry);
}
