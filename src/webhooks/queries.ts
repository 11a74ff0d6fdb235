/** Webhook secrets, deliveries and their attempts: every query a caller reaches is scoped to its account. */
import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { webhookAttempts, webhookDeliveries, webhookSecrets } from "../../db/schema.ts";

export type SecretRow = typeof webhookSecrets.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;
export type DeliveryStatus = DeliveryRow["status"];

export async function findSecret(db: Database, accountId: string): Promise<SecretRow | null> {
  const [row] = await db.select().from(webhookSecrets).where(eq(webhookSecrets.accountId, accountId));
  return row ?? null;
}

/** The account's secret, made now if it has none (two first reads at once keep the one written first). */
export async function ensureSecret(db: Database, accountId: string, fresh: string): Promise<SecretRow> {
  await db.insert(webhookSecrets).values({ accountId, secret: fresh }).onConflictDoNothing();
  return (await findSecret(db, accountId))!;
}

/** A new secret; the one it replaces keeps signing until `until`. */
export async function rotateSecret(db: Database, accountId: string, fresh: string, at: Date, until: Date): Promise<SecretRow> {
  await ensureSecret(db, accountId, fresh);
  const [row] = await db
    .update(webhookSecrets)
    .set({ secret: fresh, previousSecret: webhookSecrets.secret, previousUntil: until, rotatedAt: at })
    .where(eq(webhookSecrets.accountId, accountId))
    .returning();
  return row!;
}

export async function insertDelivery(db: Database, row: typeof webhookDeliveries.$inferInsert): Promise<DeliveryRow> {
  const [inserted] = await db.insert(webhookDeliveries).values(row).returning();
  return inserted!;
}

/** For the delivering worker: the delivery whatever its account. */
export async function deliveryById(db: Database, id: string): Promise<DeliveryRow | null> {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row ?? null;
}

export async function findDelivery(db: Database, accountId: string, id: string): Promise<DeliveryRow | null> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.accountId, accountId), eq(webhookDeliveries.id, id)));
  return row ?? null;
}

export async function listDeliveries(
  db: Database,
  accountId: string,
  options: { status?: DeliveryStatus; before?: string; limit: number },
): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.accountId, accountId),
        options.status ? eq(webhookDeliveries.status, options.status) : undefined,
        options.before ? lt(webhookDeliveries.id, options.before) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(options.limit + 1);
}

export async function attemptsOf(db: Database, deliveryId: string): Promise<AttemptRow[]> {
  return db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.n));
}

/** One attempt's outcome, and the delivery's state after it, in one transaction. */
export async function recordAttempt(
  db: Database,
  delivery: DeliveryRow,
  attempt: { at: Date; status: number | null; latencyMs: number; error: string | null },
  next: { status: DeliveryStatus; nextAttemptAt: Date | null; deliveredAt: Date | null },
): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        status: next.status,
        lastStatus: attempt.status,
        lastError: attempt.error,
        lastLatencyMs: attempt.latencyMs,
        nextAttemptAt: next.nextAttemptAt,
        deliveredAt: next.deliveredAt,
      })
      .where(eq(webhookDeliveries.id, delivery.id))
      .returning({ attempts: webhookDeliveries.attempts });
    await tx.insert(webhookAttempts).values({ deliveryId: delivery.id, n: row!.attempts, ...attempt });
  });
}

/** Back to pending, to be tried now (a redelivery asked for by its owner). */
export async function reopenDelivery(db: Database, accountId: string, id: string, at: Date, until: Date): Promise<DeliveryRow | null> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: at, retryUntil: until, deliveredAt: null })
    .where(and(eq(webhookDeliveries.accountId, accountId), eq(webhookDeliveries.id, id)))
    .returning();
  return row ?? null;
}

/** Deletes deliveries made before `cutoff` (with their attempts), up to `limit`; answers how many. */
export async function deleteDeliveriesBefore(db: Database, cutoff: Date, limit: number): Promise<number> {
  const doomed = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(lt(webhookDeliveries.createdAt, cutoff))
    .limit(limit);
  const rows = await db.delete(webhookDeliveries).where(sql`${webhookDeliveries.id} in ${doomed}`).returning({ id: webhookDeliveries.id });
  return rows.length;
}
