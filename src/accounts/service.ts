/**
 * Accounts and keys: the verbs behind the CLI, the routes and the first
 * start. Nothing here knows HTTP; ownership comes in as `accountId`.
 */
import { accountCaller } from "./account-caller.ts";
import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { invalid, notFound, unauthorized } from "../errors.ts";
import { looksLikeId, newId } from "../ids.ts";
import { ENTERPRISE_MAX_PER_MINUTE, ENTERPRISE_MIN_PER_MINUTE, planFor } from "../limits/plans.ts";
import type { Caller } from "../caller.ts";
import type { AccountsContext } from "./context.ts";
import type { KeyLookup } from "./key-cache.ts";
import { generateApiKey, hashApiKey, parseApiKey, sameHash } from "./keys.ts";
import * as q from "./queries.ts";
import { insertSignInLink, type NewSignInLink } from "./sign-in-links.ts";
import { assertInGoodStanding } from "./standing.ts";

export const MICROS_PER_DOLLAR = 1_000_000;
const TOUCH_INTERVAL_MS = 60_000;
const MAX_CREDIT_DOLLARS = 1_000_000;

export function dollarsToMicros(dollars: number): number {
  return Math.round(dollars * MICROS_PER_DOLLAR);
}

export interface CreatedKey {
  key: q.ApiKeyRow;
  /** The plaintext key: shown once, never stored. */
  secret: string;
}

export const MAX_KEY_DAYS = 3650;
const DAY_MS = 86_400_000;

export interface IssueOptions {
  /** The issue time (the context's clock): created_at, so a rotation can carry a key's lifetime over. */
  now: number;
  expiresAt?: Date | null;
}

/** A new key row and its secret; `db` may be a transaction (a rotation issues inside one). */
export async function issueKey(db: Database, accountId: string, name: string | null, options: IssueOptions): Promise<CreatedKey> {
  // The prefix carries 8 random characters: a collision is rare but possible, so try another. The insert
  // skips a conflicting row instead of failing, which would abort an enclosing transaction.
  for (let attempt = 0; attempt < 4; attempt++) {
    const generated = generateApiKey();
    const key = await q.insertKey(db, {
      id: newId("key"),
      accountId,
      name,
      prefix: generated.prefix,
      hash: generated.hash,
      createdAt: new Date(options.now),
      expiresAt: options.expiresAt ?? null,
    });
    if (key) return { key, secret: generated.secret };
  }
  throw new Error("no free key prefix after 4 attempts");
}

/** When a key made now with `expires_in_days` stops working; null (or absent) is a key that never expires. */
export function expiryFor(now: number, days: number | null | undefined): Date | null {
  if (days === undefined || days === null) return null;
  if (!Number.isInteger(days) || days < 1 || days > MAX_KEY_DAYS)
    throw invalid(["expires_in_days"], `expires_in_days must be a whole number of days from 1 to ${MAX_KEY_DAYS}`);
  return new Date(now + days * DAY_MS);
}

export interface NewAccountInput {
  name: string;
  creditDollars?: number;
  customRateLimit?: number | null;
}

export function checkAccountInput(input: NewAccountInput): void {
  if (!input.name.trim() || input.name.length > 200) throw invalid(["name"], "name must be 1 to 200 characters");
  const credit = input.creditDollars ?? 0;
  if (!Number.isFinite(credit) || credit < 0 || credit > MAX_CREDIT_DOLLARS)
    throw invalid(["credit"], `credit must be between 0 and ${MAX_CREDIT_DOLLARS} dollars`);
  const limit = input.customRateLimit;
  if (
    limit !== undefined &&
    limit !== null &&
    (!Number.isInteger(limit) || limit < ENTERPRISE_MIN_PER_MINUTE || limit > ENTERPRISE_MAX_PER_MINUTE)
  ) {
    throw invalid(
      ["limit"],
      `an enterprise limit is a whole number of calls per minute from ${ENTERPRISE_MIN_PER_MINUTE} to ${ENTERPRISE_MAX_PER_MINUTE}`,
    );
  }
}

type NewAccount = { account: q.AccountRow } & CreatedKey;

async function insertAccountWithKey(db: Database, input: NewAccountInput, now: number): Promise<NewAccount> {
  const account = await q.insertAccount(db, {
    id: newId("acct"),
    name: input.name.trim(),
    balanceMicros: dollarsToMicros(input.creditDollars ?? 0),
    customRateLimit: input.customRateLimit ?? null,
  });
  return { account, ...(await issueKey(db, account.id, "first key", { now })) };
}

export async function createAccount(ctx: AccountsContext, input: NewAccountInput): Promise<NewAccount> {
  checkAccountInput(input);
  return ctx.db.transaction((tx) => insertAccountWithKey(tx as unknown as Database, input, ctx.clock.now()));
}

export async function createKey(
  ctx: AccountsContext,
  accountId: string,
  name: string | null,
  options: { expiresInDays?: number | null } = {},
): Promise<CreatedKey> {
  const now = ctx.clock.now();
  const expiresAt = expiryFor(now, options.expiresInDays);
  if (!(await q.getAccount(ctx.db, accountId))) throw notFound("account");
  const created = await issueKey(ctx.db, accountId, name, { now, expiresAt });
  ctx.keyCache?.forgetAccount(accountId); // its cached key list lacks the new one
  return created;
}

/** The owner's account, or 404. */
export async function getAccount(ctx: AccountsContext, accountId: string): Promise<q.AccountRow> {
  const account = ctx.keyCache?.account(accountId) ?? (await q.getAccount(ctx.db, accountId));
  if (!account) throw notFound("account");
  return account;
}

export async function listKeys(ctx: AccountsContext, accountId: string): Promise<q.ApiKeyRow[]> {
  const cache = ctx.keyCache;
  const cached = cache?.keysOf(accountId);
  if (cached) return cached;
  const version = cache?.version() ?? 0;
  const keys = await q.listKeys(ctx.db, accountId);
  cache?.setKeysOf(accountId, keys, version);
  return keys;
}

/** The owner's key, or 404: another account's key and a string that cannot be a key id alike (the latter without a query). */
export async function getKey(ctx: AccountsContext, accountId: string, keyId: string): Promise<q.ApiKeyRow> {
  const key = looksLikeId("key", keyId) ? await q.getKey(ctx.db, accountId, keyId) : null;
  if (!key) throw notFound("key");
  return key;
}

/** Revokes the owner's key (404 for any other); revoking it again keeps the first time. */
export async function revokeKey(ctx: AccountsContext, accountId: string, keyId: string): Promise<q.ApiKeyRow> {
  if (!looksLikeId("key", keyId)) throw notFound("key");
  const key = await q.revokeKey(ctx.db, accountId, keyId, new Date(ctx.clock.now()));
  if (!key) throw notFound("key");
  ctx.keyCache?.forgetAccount(accountId);
  return key;
}

export async function addCredit(ctx: AccountsContext, accountId: string, dollars: number): Promise<q.AccountRow> {
  if (!Number.isFinite(dollars) || dollars <= 0 || dollars > MAX_CREDIT_DOLLARS) {
    throw invalid(["amount"], `amount must be more than 0 and at most ${MAX_CREDIT_DOLLARS} dollars`);
  }
  const account = await q.addCredit(ctx.db, accountId, dollarsToMicros(dollars), new Date(ctx.clock.now()));
  if (!account) throw notFound("account");
  ctx.keyCache?.forgetAccount(accountId);
  return account;
}

/** A key the cache does not know either way (authenticate asked it first): read, and remembered found or not. */
async function lookupKey(ctx: AccountsContext, prefix: string): Promise<KeyLookup | null> {
  const cache = ctx.keyCache;
  const version = cache?.version() ?? 0;
  const found = await q.findKeyForAuth(ctx.db, prefix);
  if (found) cache?.set(prefix, found, version);
  else cache?.setUnknown(prefix, version);
  return found;
}

/**
 * The caller behind an X-API-Key value, or the 401 error. Last use is written at most once a minute. A key in the
 * cache (or known not to exist) is answered at once, without a promise: on the hot path the awaits cost more than
 * the checks. Any other is answered after a lookup.
 */
export function authenticate(ctx: AccountsContext, presented: string | null | undefined): Caller | Promise<Caller> {
  if (!presented) throw unauthorized();
  const key = presented.trim();
  const parsed = parseApiKey(key);
  if (!parsed) throw unauthorized();
  const cached = ctx.keyCache?.get(parsed.prefix);
  if (cached) return callerOf(ctx, key, cached);
  // A prefix recently looked up and not found: refused at once too (a flood of made-up keys is all refusals).
  if (ctx.keyCache?.isUnknown(parsed.prefix)) throw unauthorized();
  return lookupKey(ctx, parsed.prefix).then((found) => callerOf(ctx, key, found));
}

function callerOf(ctx: AccountsContext, presented: string, found: KeyLookup | null): Caller {
  const now = ctx.clock.now();
  if (
    !found ||
    !sameHash(found.key.hash, hashApiKey(presented)) ||
    found.key.revokedAt !== null ||
    (found.key.expiresAt !== null && found.key.expiresAt.getTime() <= now)
  )
    throw unauthorized();
  // Only a caller who holds a working key learns the account's standing.
  assertInGoodStanding(found.account);
  if (!found.key.lastUsedAt || now - found.key.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) {
    found.key.lastUsedAt = new Date(now); // the cached row too, so the next call does not write again
    // Best effort: the call goes on, but a failing stamp is reported.
    const stamp = q
      .touchKey(ctx.db, found.key.id, new Date(now), TOUCH_INTERVAL_MS)
      .catch((error: unknown) => ctx.warn?.("key last-used stamp failed", { key_id: found.key.id, error }));
    ctx.background?.run(stamp);
  }
  return accountCaller(found.account, found.key);
}

/**
 * On the very first start, an empty database gets a `local` account, its key and a one-time sign-in
 * link, both shown once: the key for the first call, the link for its owner to set a dashboard sign-in.
 */
export async function bootstrapFirstAccount(ctx: AccountsContext): Promise<(NewAccount & { signInLink: NewSignInLink }) | null> {
  // Instances starting together on one Postgres: the lock lets exactly one of them see the empty table.
  return ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Database;
    await tx.execute(sql`select pg_advisory_xact_lock(7143820442)`);
    if ((await q.countAccounts(db)) > 0) return null;
    const created = await insertAccountWithKey(db, { name: "local" }, ctx.clock.now());
    return { ...created, signInLink: await insertSignInLink(db, ctx.clock, created.account.id) };
  });
}

export function accountView(account: q.AccountRow, caller?: Caller) {
  const plan = planFor(account);
  return {
    id: account.id,
    name: account.name,
    plan: plan.name,
    plan_label: plan.label,
    rate_limit_per_minute: plan.perMinute,
    balance: account.balanceMicros / MICROS_PER_DOLLAR,
    key_id: caller?.keyId ?? null,
    key_prefix: caller?.keyPrefix ?? null,
    created_at: account.createdAt.toISOString(),
  };
}

export function keyView(key: q.ApiKeyRow) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    replaced_by: key.replacedBy,
  };
}
