import type { Breach, Sighting } from "./windows.ts";

/** Where the windows live: in this process, or in Redis shared by every instance. */
export interface WindowStore {
  readonly name: "memory" | "redis" | "upstash";
  /**
   * Adds one call's sightings (its address's and its work's) at `now`, trims the sets, and returns the windows
   * this call newly breached: each subject and window at most once per window period (a flag marker).
   */
  record(sightings: readonly Sighting[], now: number): Promise<Breach[]>;
  close(): Promise<void>;
}
