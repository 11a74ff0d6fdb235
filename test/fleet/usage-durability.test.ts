/**
 * No usage lost (issue 25, item 2): a billable call whose answer reached the
 * caller has exactly one usage row and exactly one debit, even when every
 * instance is SIGKILLed a millisecond after the answer. Measured through
 * the balancer, as the issue measured it: 30 searches answered, all three
 * instances killed as the last answer arrives, one started again.
 */
import { afterAll, expect, test } from "bun:test";
import { eq, inArray, sum } from "drizzle-orm";
import { accounts, usageRecords } from "../../db/schema.ts";
import { fleetOnDemand } from "../helpers/fleet.ts";

const onDemand = fleetOnDemand();
/** Started by the first test that runs. */
const theFleet = async () => (await onDemand.get()).fleet;
afterAll(() => onDemand.stop());

// Before usage was committed in the call's own path it waited in each instance's memory until the next flush: a kill
// right after the answers lost some (the issue measured 29 rows for 30 answers; this test lost rows in each of two runs).
test("30 searches answered, all three instances SIGKILLed as the last answer arrives, one started again: 30 usage rows and 30 debits", async () => {
  const f = await theFleet();
  // Pro (a balance), so every search is charged and debited.
  const owner = await f.account({ name: "durable", credit: 10 });
  const balance = async () =>
    (await f.database.handle.db.select({ micros: accounts.balanceMicros }).from(accounts).where(eq(accounts.id, owner.accountId)))[0]!
      .micros;
  const before = await balance();
  const requestIds = Array.from({ length: 30 }, (_, i) => `durable-${crypto.randomUUID().slice(0, 8)}-${i}`);
  await Promise.all(
    [0, 1, 2].map(async (lane) => {
      for (let i = lane; i < requestIds.length; i += 3) {
        const response = await fetch(`${f.url}/v1/search`, {
          method: "POST",
          headers: { "X-API-Key": owner.apiKey, "content-type": "application/json", "x-request-id": requestIds[i]! },
          body: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
        });
        expect(response.status).toBe(200);
        await response.json();
      }
    }),
  );
  await Promise.all(f.instances.map((instance) => instance.kill()));
  await f.instances[0]!.start();

  // Whatever the mechanism, the rows are there once one instance runs again (bounded: a drain, not a guess).
  const deadline = performance.now() + 15_000;
  let rows = await f.usageRows(requestIds);
  while (rows.size < requestIds.length && performance.now() < deadline) {
    await Bun.sleep(100);
    rows = await f.usageRows(requestIds);
  }
  expect(requestIds.filter((id) => rows.get(id) !== 1)).toEqual([]);
  const [charged] = await f.database.handle.db
    .select({ micros: sum(usageRecords.costMicros) })
    .from(usageRecords)
    .where(inArray(usageRecords.requestId, requestIds));
  expect(Number(charged!.micros)).toBeGreaterThan(0);
  expect(before - (await balance())).toBe(Number(charged!.micros));
});
