/**
 * Key rotation: a successor key, and a grace period in which the old key
 * still works so the programs using it can move over. The successor keeps
 * the old key's name and lifetime (a key made to last 90 days is succeeded
 * by one that lasts 90 days from the rotation; one that never expires, by
 * one that never expires). The old key stops at the earlier of its own
 * expiry and the end of the grace period, and names its successor.
 */
import type { Database } from "../../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { looksLikeId } from "../ids.ts";
import * as q from "./queries.ts";
import { issueKey, type CreatedKey } from "./service.ts";
import type { AccountsContext } from "./context.ts";

export const DEFAULT_GRACE_SECONDS = 86_400;
export const MAX_GRACE_SECONDS = 30 * 86_400;

export interface Rotation {
  successor: CreatedKey;
  /** The old key as the rotation left it: its successor named, its end set. */
  previous: q.ApiKeyRow;
}

/** Why a key cannot be rotated, or null when it can. */
function rotationRefusal(key: q.ApiKeyRow, now: number): string | null {
  if (key.revokedAt) return "this key is revoked: create a new key instead";
  if (key.replacedBy) return `this key was already rotated: its successor is ${key.replacedBy}`;
  if (key.expiresAt && key.expiresAt.getTime() <= now) return "this key has expired: create a new key instead";
  return null;
}

/**
 * Rotates the owner's key (404 for any other, as getKey); a revoked,
 * expired or already rotated key is a 409. The successor and the old key's
 * new end are written in one transaction, with the old row locked, so two
 * rotations of one key cannot both succeed.
 */
export async function rotateKey(
  ctx: AccountsContext,
  accountId: string,
  keyId: string,
  input: { graceSeconds?: number | null } = {},
): Promise<Rotation> {
  const grace = input.graceSeconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS)
    throw invalid(["grace_seconds"], `grace_seconds must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (30 days)`);
  if (!looksLikeId("key", keyId)) throw notFound("key");
  const now = ctx.clock.now();
  const rotation = await ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Database;
    const old = await q.lockKey(db, accountId, keyId);
    if (!old) throw notFound("key");
    const refusal = rotationRefusal(old, now);
    if (refusal) throw conflict(refusal);
    const lifetime = old.expiresAt ? old.expiresAt.getTime() - old.createdAt.getTime() : null;
    const successor = await issueKey(db, accountId, old.name, { now, expiresAt: lifetime === null ? null : new Date(now + lifetime) });
    const until = Math.min(old.expiresAt?.getTime() ?? Infinity, now + grace * 1000);
    const previous = await q.replaceKey(db, accountId, keyId, successor.key.id, new Date(until));
    return { successor, previous };
  });
  ctx.keyCache?.forgetAccount(accountId); // the cached rows lack the new key and the old one's end
  return rotation;
}
