/**
 * Designed endpoints in the database. Every function about an account's
 * endpoints takes the owner's account id: another account's id finds
 * nothing, so it is a 404 by construction.
 */
import { and, asc, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { endpoints, endpointVersions } from "../../db/schema.ts";
import { couldBeStub } from "../ids.ts";

export type VersionRow = typeof endpointVersions.$inferSelect;
export type NewVersion = typeof endpointVersions.$inferInsert;
export type LineageRow = typeof endpoints.$inferSelect;

export interface VersionWithStub extends VersionRow {
  stub: string;
}

const withStub = { version: endpointVersions, stub: endpoints.stub };

export async function insertLineage(db: Database, row: typeof endpoints.$inferInsert): Promise<void> {
  await db.insert(endpoints).values(row);
}

export async function insertVersion(db: Database, row: NewVersion): Promise<VersionRow> {
  const [created] = await db.insert(endpointVersions).values(row).returning();
  return created!;
}

const MAX_VERSION_ID = 2_147_483_647;

/** An id the sequence can have produced. Any other (0, negative, past the column's range) cannot exist: it finds nothing without a query. */
export function couldBeVersionId(apiId: number): boolean {
  return Number.isSafeInteger(apiId) && apiId >= 1 && apiId <= MAX_VERSION_ID;
}

export async function getVersion(db: Database, accountId: string, apiId: number): Promise<VersionWithStub | null> {
  if (!couldBeVersionId(apiId)) return null;
  const rows = await db
    .select(withStub)
    .from(endpointVersions)
    .innerJoin(endpoints, eq(endpoints.id, endpointVersions.endpointId))
    .where(and(eq(endpointVersions.accountId, accountId), eq(endpointVersions.id, apiId)))
    .limit(1);
  return rows[0] ? { ...rows[0].version, stub: rows[0].stub } : null;
}

/** Takes the lineage's row lock: concurrent version changes to one lineage run one after another. */
export async function lockLineage(db: Database, accountId: string, endpointId: string): Promise<LineageRow | null> {
  const rows = await db
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.accountId, accountId), eq(endpoints.id, endpointId)))
    .for("update");
  return rows[0] ?? null;
}

export async function lineageVersions(db: Database, accountId: string, endpointId: string): Promise<VersionRow[]> {
  return db
    .select()
    .from(endpointVersions)
    .where(and(eq(endpointVersions.accountId, accountId), eq(endpointVersions.endpointId, endpointId)))
    .orderBy(asc(endpointVersions.version));
}

/** Every version of the owner's endpoints, newest lineage first, versions in order. */
export async function ownerVersions(db: Database, accountId: string): Promise<VersionWithStub[]> {
  const rows = await db
    .select(withStub)
    .from(endpointVersions)
    .innerJoin(endpoints, eq(endpoints.id, endpointVersions.endpointId))
    .where(eq(endpointVersions.accountId, accountId))
    .orderBy(desc(endpoints.createdAt), desc(endpoints.id), asc(endpointVersions.version));
  return rows.map((r) => ({ ...r.version, stub: r.stub }));
}

export async function lineageByStub(db: Database, accountId: string, stub: string): Promise<LineageRow | null> {
  if (!couldBeStub(stub)) return null;
  const rows = await db
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.accountId, accountId), eq(endpoints.stub, stub)))
    .limit(1);
  return rows[0] ?? null;
}

export async function updateDraft(
  db: Database,
  accountId: string,
  apiId: number,
  changes: Partial<NewVersion>,
  at: Date,
): Promise<VersionRow | null> {
  const rows = await db
    .update(endpointVersions)
    .set({ ...changes, updatedAt: at })
    .where(and(eq(endpointVersions.accountId, accountId), eq(endpointVersions.id, apiId), isNull(endpointVersions.frozenAt)))
    .returning();
  return rows[0] ?? null;
}

export async function freezeVersion(db: Database, accountId: string, apiId: number, at: Date): Promise<void> {
  await db
    .update(endpointVersions)
    .set({ frozenAt: at, updatedAt: at })
    .where(and(eq(endpointVersions.accountId, accountId), eq(endpointVersions.id, apiId), isNull(endpointVersions.frozenAt)));
}

export async function deleteLineage(db: Database, accountId: string, endpointId: string): Promise<boolean> {
  const rows = await db
    .delete(endpoints)
    .where(and(eq(endpoints.accountId, accountId), eq(endpoints.id, endpointId)))
    .returning({ id: endpoints.id });
  return rows.length > 0;
}
