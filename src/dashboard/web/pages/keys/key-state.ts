/** What a key's row says about it: whether it works, until when, and what may still be done with it. */
import { formatTime, formatUntil } from "../../format.ts";
import type { ApiKey } from "../../model.ts";

export interface KeyState {
  /** The Status cell. */
  status: string;
  /** The Expires cell: "Never", "in 5 days", "Expired". */
  expires: string;
  /** False once the key no longer works (revoked, expired, or rotated and past its grace). */
  works: boolean;
  canRotate: boolean;
  canRevoke: boolean;
}

export function keyLabel(key: ApiKey): string {
  return key.name ? `${key.name} (${key.prefix}…)` : `${key.prefix}…`;
}

export function keyState(key: ApiKey, now = Date.now()): KeyState {
  const ended = key.expires_at !== null && Date.parse(key.expires_at) <= now;
  const expires = key.expires_at === null ? "Never" : ended ? "Expired" : formatUntil(key.expires_at, now);
  if (key.revoked_at) return { status: `Revoked ${formatTime(key.revoked_at)}`, expires, works: false, canRotate: false, canRevoke: false };
  if (key.replaced_by)
    return ended
      ? { status: `Rotated; stopped ${formatTime(key.expires_at)}`, expires, works: false, canRotate: false, canRevoke: false }
      : { status: `Rotated; works until ${formatTime(key.expires_at)}`, expires, works: true, canRotate: false, canRevoke: true };
  if (ended) return { status: `Expired ${formatTime(key.expires_at)}`, expires, works: false, canRotate: false, canRevoke: false };
  return { status: "Active", expires, works: true, canRotate: true, canRevoke: true };
}
