/**
 * Writing usage: records and the debits they carry, all or nothing. A batch
 * (a group of calls committed together, or a flush) is one statement
 * (queries.ts writeUsage), so one round trip; a flush larger than a batch is
 * one transaction of several. A record whose event id is already in the
 * table is a call written before (a batch retried after its commit was
 * lost, a call committed and then recorded by its failure): it inserts
 * nothing and debits nothing, so usage written twice moves money once.
 */
import type { Database } from "../../db/client.ts";
import { writeUsage, type UsageWrite } from "./queries.ts";

/** Writes the records, `batchSize` a statement; returns the accounts debited. */
export async function writeLedger(db: Database, rows: UsageWrite[], batchSize: number): Promise<string[]> {
  if (rows.length <= batchSize) return writeUsage(db, rows);
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    const debited = new Set<string>();
    for (let i = 0; i < rows.length; i += batchSize) for (const id of await writeUsage(tx, rows.slice(i, i + batchSize))) debited.add(id);
    return [...debited];
  });
}
