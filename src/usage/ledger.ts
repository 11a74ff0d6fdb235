/**
 * Writing usage: records and the debits they carry, in one transaction. A
 * record whose event id is already in the table is a call written before (a
 * batch retried after its commit was lost, a call committed and then
 * recorded again): it inserts nothing and debits nothing, so usage written
 * twice moves money once.
 */
import type { Database } from "../../db/client.ts";
import { debitBalance } from "../accounts/queries.ts";
import { insertUsageRecords, type UsageRecordRow } from "./queries.ts";

/** A usage record to write, with what it debits from a Pro balance. */
export interface LedgerEntry {
  row: UsageRecordRow;
  debitMicros: number;
}

/** Writes the entries, `batchSize` rows a statement, and debits what the rows inserted carry; returns the accounts debited. */
export async function writeLedger(db: Database, entries: LedgerEntry[], batchSize: number): Promise<string[]> {
  if (entries.length === 0) return [];
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    const debits = new Map<string, number>();
    for (let i = 0; i < entries.length; i += batchSize) {
      const batch = entries.slice(i, i + batchSize);
      const inserted = await insertUsageRecords(
        tx,
        batch.map((entry) => entry.row),
      );
      for (const entry of batch) {
        // A row without an event id (written by hand, or by an older caller) always inserts.
        const written = entry.row.event_id === null || inserted.has(entry.row.event_id);
        if (written && entry.debitMicros > 0) debits.set(entry.row.account_id, (debits.get(entry.row.account_id) ?? 0) + entry.debitMicros);
      }
    }
    const at = new Date();
    for (const [accountId, micros] of debits) await debitBalance(tx, accountId, micros, at);
    return [...debits.keys()];
  });
}
