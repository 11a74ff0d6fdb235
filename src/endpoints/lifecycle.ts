/**
 * Versions of a designed endpoint (spec section 3). A draft is editable and
 * there is at most one per lineage; a released version is immutable; the
 * live version is the released one with the highest number or, before
 * anything was released, the newest version.
 */
import type { VersionRow } from "./queries.ts";

export type VersionState = "draft" | "released";

export const stateOf = (version: Pick<VersionRow, "frozenAt">): VersionState => (version.frozenAt ? "released" : "draft");

/** The live version's number among a lineage's versions (sorted or not). */
export function liveVersion(versions: Pick<VersionRow, "version" | "frozenAt">[]): number {
  const released = versions.filter((v) => v.frozenAt).map((v) => v.version);
  if (released.length) return Math.max(...released);
  return Math.max(...versions.map((v) => v.version));
}

export const DRAFT_EXISTS = "release or delete the draft first";
