/**
 * Every query about an account's own rows takes the owner's account id as a
 * required argument: another account's id finds nothing, so it is a 404 by
 * construction. The one exception, findKeyForAuth, is how the owner is found.
 */
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { accounts, apiKeys } from "../../db/schema.ts";

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertAccount(db: Database, row: typeof accounts.$inferInsert): Promise<AccountRow> {
  const [created] = await db.insert(accounts).values(row).returning();
  return created!;
}

/** The new key, or null when its prefix (or hash) is taken: the caller draws another. */
export async function insertKey(db: Database, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow | null> {
  const [created] = await db.insert(apiKeys).values(row).onConflictDoNothing().returning();
  return created ?? null;
}

/** The key row (revoked or not) and its account, for authentication. */
export async function findKeyForAuth(db: Database, prefix: string): Promise<{ key: ApiKeyRow; account: AccountRow } | null> {
  const rows = await db
    .select({ key: apiKeys, account: accounts })
    .from(apiKeys)
    .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
    .where(eq(apiKeys.prefix, prefix))
    .limit(1);
  return rows[0] ?? null;
}

export async function getAccount(db: Database, accountId: string): Promise<AccountRow | null> {
  const rows = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  return rows[0] ?? null;
}

export async function listAccounts(db: Database): Promise<AccountRow[]> {
  return db.select().from(accounts).orderBy(accounts.id);
}

export async function countAccounts(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(accounts);
  return Number(row?.n ?? 0);
}

export async function listKeys(db: Database, accountId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(desc(apiKeys.id));
}

export async function getKey(db: Database, accountId: string, keyId: string): Promise<ApiKeyRow | null> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId)))
    .limit(1);
  return rows[0] ?? null;
}

/** The owner's key, locked until the transaction ends: two rotations of one key take turns. */
export async function lockKey(db: Database, accountId: string, keyId: string): Promise<ApiKeyRow | null> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId)))
    .limit(1)
    .for("update");
  return rows[0] ?? null;
}

/** Marks the owner's key as succeeded by another, working until `until`. */
export async function replaceKey(db: Database, accountId: string, keyId: string, successorId: string, until: Date): Promise<ApiKeyRow> {
  const [row] = await db
    .update(apiKeys)
    .set({ replacedBy: successorId, expiresAt: until })
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId)))
    .returning();
  return row!;
}

/** The account that owns a key: the CLI's way in, before it acts as that owner. */
export async function findKeyOwner(db: Database, keyId: string): Promise<string | null> {
  const rows = await db.select({ accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
  return rows[0]?.accountId ?? null;
}

/** Revokes the owner's key; revoking it again keeps the first time. */
export async function revokeKey(db: Database, accountId: string, keyId: string, at: Date): Promise<ApiKeyRow | null> {
  await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
  return getKey(db, accountId, keyId);
}

export async function addCredit(db: Database, accountId: string, micros: number, at: Date): Promise<AccountRow | null> {
  const rows = await db
    .update(accounts)
    .set({ balanceMicros: sql`${accounts.balanceMicros} + ${micros}`, updatedAt: at })
    .where(eq(accounts.id, accountId))
    .returning();
  return rows[0] ?? null;
}

/** Records use at most once per interval: the condition makes concurrent touches a no-op. */
export async function touchKey(db: Database, keyId: string, at: Date, minIntervalMs: number): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(at.getTime() - minIntervalMs)))));
}

/** Takes a charge from a prepaid balance, never below zero (an empty balance is the free plan). */
export async function debitBalance(db: Database, accountId: string, micros: number, at: Date): Promise<void> {
  await db
    .update(accounts)
    .set({ balanceMicros: sql`greatest(${accounts.balanceMicros} - ${micros}, 0)`, updatedAt: at })
    .where(eq(accounts.id, accountId));
}

export async function findAccountByEmail(db: Database, email: string): Promise<AccountRow | null> {
  const rows = await db.select().from(accounts).where(eq(accounts.email, email)).limit(1);
  return rows[0] ?? null;
}

export async function setCredentials(
  db: Database,
  accountId: string,
  email: string,
  passwordHash: string,
  at: Date,
): Promise<AccountRow | null> {
  const rows = await db.update(accounts).set({ email, passwordHash, updatedAt: at }).where(eq(accounts.id, accountId)).returning();
  return rows[0] ?? null;
}
