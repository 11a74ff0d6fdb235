/**
 * A usage write is all or nothing: when the database refuses a debit, the
 * rows written with it are not written either, and the retry writes each
 * row and each debit exactly once. The fault is real: a trigger
 * that refuses the first balance update.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { accounts, usageRecords } from "../../db/schema.ts";
import { createAccount } from "../../src/accounts/service.ts";
import { ManualClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { UsageRecorder } from "../../src/usage/recorder.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;

/** The database, with the statements written through it counted (the recorder writes each with execute()). */
function countingStatements(db: TestDatabase["handle"]["db"]) {
  let statements = 0;
  const counted = new Proxy(db, {
    get(target, name, receiver) {
      if (name !== "execute") return Reflect.get(target, name, receiver);
      return (query: unknown) => {
        statements++;
        return target.execute(query as never);
      };
    },
  });
  return { counted, statements: () => statements };
}

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database.drop();
});

test("a refused debit writes no usage row; the retry writes every row and debit once", async () => {
  const db = database.handle.db;
  const { account, key } = await createAccount({ db, clock: new ManualClock() }, { name: "pro", creditDollars: 10 });
  // A sequence, not a table: nextval survives the rollback, so the fault fires exactly once.
  await db.execute(sql`create sequence debit_attempts`);
  await db.execute(sql`
    create function refuse_first_debit() returns trigger language plpgsql as $$
    begin
      if nextval('debit_attempts') = 1 then
        raise exception 'debit refused for the test';
      end if;
      return new;
    end $$`);
  await db.execute(sql`create trigger refuse_first_debit before update on accounts for each row execute function refuse_first_debit()`);

  const recorder = new UsageRecorder(
    db,
    createLogger({ level: "silent" }),
    { perMillionTokens: 1_000_000, publisherShare: 0 },
    { flushIntervalMs: 60_000, batchSize: 500 },
  );
  const caller = {
    accountId: account.id,
    accountName: account.name,
    keyId: key.id,
    keyPrefix: null,
    balanceMicros: account.balanceMicros,
    customRateLimit: null,
  };
  for (let i = 0; i < 3; i++)
    recorder.record({ caller, route: "POST /v1/search", status: 200, tokens: 1, requestId: `req_${i}`, at: new Date() });

  await recorder.flush(); // the trigger refuses the debit: the whole flush rolls back
  expect((await db.select().from(usageRecords)).length).toBe(0);
  await recorder.flush(); // retried as a unit
  await recorder.close();

  const rows = await db.select().from(usageRecords);
  expect(rows.map((r) => r.requestId).sort()).toEqual(["req_0", "req_1", "req_2"]);
  const [after] = await db.select({ balance: accounts.balanceMicros }).from(accounts).where(sql`${accounts.id} = ${account.id}`);
  // Three calls of one token at $1 per token: $3 debited once, not twice.
  expect(after!.balance).toBe(10_000_000 - 3_000_000);
});

test("records arriving faster than a batch is written go out in later batches, each once, with one write at a time", async () => {
  const db = database.handle.db;
  const { account, key } = await createAccount({ db, clock: new ManualClock() }, { name: "busy" });
  let writing = 0;
  let overlapped = false;
  const watched = new Proxy(db, {
    get(target, name, receiver) {
      if (name !== "transaction") return Reflect.get(target, name, receiver);
      return async (run: (tx: unknown) => Promise<unknown>) => {
        writing++;
        if (writing > 1) overlapped = true;
        try {
          return await target.transaction(run as never);
        } finally {
          writing--;
        }
      };
    },
  });
  const recorder = new UsageRecorder(
    watched,
    createLogger({ level: "silent" }),
    { perMillionTokens: 0, publisherShare: 0 },
    { flushIntervalMs: 60_000, batchSize: 100 },
  );
  const caller = { accountId: account.id, accountName: "busy", keyId: key.id, keyPrefix: null, balanceMicros: 0, customRateLimit: null };
  for (let i = 0; i < 1_050; i++) {
    recorder.record({ caller, route: "GET /v1/account", status: 200, tokens: 0, requestId: `req_busy_${i}`, at: new Date() });
    if (i % 50 === 0) await Bun.sleep(0);
  }
  await recorder.close();
  const rows = await db.select({ id: usageRecords.requestId }).from(usageRecords).where(sql`${usageRecords.accountId} = ${account.id}`);
  expect(rows.length).toBe(1_050);
  expect(new Set(rows.map((r) => r.id)).size).toBe(1_050);
  expect(overlapped).toBe(false);
});

test("billable calls committed at once share statements, each written and debited once, and a repeated event writes nothing", async () => {
  const db = database.handle.db;
  const { account, key } = await createAccount({ db, clock: new ManualClock() }, { name: "committer", creditDollars: 100 });
  const { counted, statements } = countingStatements(db);
  const recorder = new UsageRecorder(
    counted,
    createLogger({ level: "silent" }),
    { perMillionTokens: 1_000_000, publisherShare: 0 },
    // One statement at a time, so the grouping is what the count shows.
    { flushIntervalMs: 60_000, batchSize: 500, commitsInFlight: 1 },
  );
  const caller = {
    accountId: account.id,
    accountName: "committer",
    keyId: key.id,
    keyPrefix: null,
    balanceMicros: 1,
    customRateLimit: null,
  };
  const event = (i: number) => ({
    caller,
    route: "POST /v1/search",
    status: 200,
    tokens: 1,
    requestId: `req_commit_${i}`,
    eventId: `use_commit_${i}`,
    at: new Date(),
  });
  await Promise.all(Array.from({ length: 50 }, (_, i) => recorder.commit(event(i))));
  // The same event committed again (a call whose commit was lost and retried): nothing more is written or debited.
  await recorder.commit(event(7));
  await recorder.close();
  const rows = await db.select({ id: usageRecords.eventId }).from(usageRecords).where(sql`${usageRecords.accountId} = ${account.id}`);
  expect(rows.length).toBe(50);
  // The first commit goes alone; the 49 that arrived while it was written go together, then the repeat.
  expect(statements()).toBeLessThanOrEqual(3);
  const [after] = await db.select({ balance: accounts.balanceMicros }).from(accounts).where(sql`${accounts.id} = ${account.id}`);
  expect(after!.balance).toBe(100_000_000 - 50_000_000);
});

test("the commits of one turn of the event loop go in one statement, even while more statements may run at once", async () => {
  const db = database.handle.db;
  const { account, key } = await createAccount({ db, clock: new ManualClock() }, { name: "one-turn", creditDollars: 100 });
  const { counted, statements } = countingStatements(db);
  // Four statements may be in flight: a commit that started one at once would leave the next three alone in theirs
  // (on PGlite, which runs a statement on this thread, every call behind it did).
  const recorder = new UsageRecorder(
    counted,
    createLogger({ level: "silent" }),
    { perMillionTokens: 1_000_000, publisherShare: 0 },
    { flushIntervalMs: 60_000, batchSize: 500, commitsInFlight: 4 },
  );
  const caller = {
    accountId: account.id,
    accountName: "one-turn",
    keyId: key.id,
    keyPrefix: null,
    balanceMicros: 1,
    customRateLimit: null,
  };
  const commits = Array.from({ length: 20 }, (_, i) =>
    recorder.commit({
      caller,
      route: "POST /v1/contents",
      status: 200,
      tokens: 1,
      requestId: `req_turn_${i}`,
      eventId: `use_turn_${i}`,
      at: new Date(),
    }),
  );
  await Promise.all(commits);
  expect(statements()).toBe(1);
  // A commit made just before close is written by it, not left waiting for the turn's end.
  const last = recorder.commit({
    caller,
    route: "POST /v1/contents",
    status: 200,
    tokens: 1,
    requestId: "req_turn_last",
    eventId: "use_turn_last",
    at: new Date(),
  });
  await recorder.close();
  await last;
  const rows = await db.select({ id: usageRecords.eventId }).from(usageRecords).where(sql`${usageRecords.accountId} = ${account.id}`);
  expect(rows.length).toBe(21);
  const [after] = await db.select({ balance: accounts.balanceMicros }).from(accounts).where(sql`${accounts.id} = ${account.id}`);
  expect(after!.balance).toBe(100_000_000 - 21_000_000);
});
