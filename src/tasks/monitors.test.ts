/**
 * A monitor's run that succeeded, heard as the task runner hears it, on a
 * real database: the first answer is stored and sends nothing; the same
 * answer again sends nothing; a changed one sends `monitor.changed` to the
 * monitor's webhook with what changed, before and after. The sink is an
 * in-memory WebhookSink (the interface's other implementation stores and
 * delivers the message).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { accounts, monitors, tasks } from "../../db/schema.ts";
import { freshDatabase, type TestDatabase } from "../../test/helpers/database.ts";
import { newId } from "../ids.ts";
import type { WebhookMessage, WebhookSink } from "../webhooks/emit.ts";
import { TaskEvents } from "./events.ts";
import { monitorRunSucceeded } from "./monitors.ts";
import { taskById } from "./queries.ts";

class MemoryWebhooks implements WebhookSink {
  readonly sent: WebhookMessage[] = [];
  async emit(message: WebhookMessage): Promise<string> {
    this.sent.push(message);
    return `msg_${this.sent.length}`;
  }
}

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.drop());

test("only a changed answer is sent to the webhook, with its changes, before and after", async () => {
  const db = database.handle.db;
  const events = new TaskEvents(db);
  const webhooks = new MemoryWebhooks();
  const ctx = { tasks: { db, events }, webhooks };
  await db.insert(accounts).values({ id: "acct_monitor", name: "monitor" });
  const monitorId = newId("mon");
  await db.insert(monitors).values({
    id: monitorId,
    accountId: "acct_monitor",
    status: "active",
    kind: "search",
    request: JSON.stringify({ prompt: "q", output_format: { price: "number" } }),
    schedule: JSON.stringify({ every_minutes: 5 }),
    webhookUrl: "https://hooks.example.com/m",
    nextRunAt: new Date(),
  });
  const run = async (response: unknown) => {
    const id = newId("task");
    await db.insert(tasks).values({
      id,
      accountId: "acct_monitor",
      status: "succeeded",
      kind: "search",
      request: "{}",
      monitorId,
      result: JSON.stringify({ response, context: [], info: {} }),
    });
    await monitorRunSucceeded(ctx, (await taskById(db, id))!);
    const written = await events.after(id, 0);
    return { id, event: JSON.parse(written.at(-1)!.data) };
  };

  const first = await run({ price: 10 });
  expect(first.event).toEqual({ type: "monitor", compared: false, changed: false, changes: null });
  const same = await run({ price: 10 });
  expect(same.event).toEqual({ type: "monitor", compared: true, changed: false, changes: null });
  expect(webhooks.sent).toEqual([]);

  const changed = await run({ price: 12 });
  const changes = { kind: "fields", fields: [{ path: "price", before: 10, after: 12 }] };
  expect(changed.event).toEqual({ type: "monitor", compared: true, changed: true, changes });
  expect(webhooks.sent).toHaveLength(1);
  const message = webhooks.sent[0]!;
  expect(message).toMatchObject({ accountId: "acct_monitor", url: "https://hooks.example.com/m", type: "monitor.changed" });
  expect(message.data).toMatchObject({
    task_id: changed.id,
    changes,
    before: { task_id: same.id, response: { price: 10 } },
    after: { task_id: changed.id, response: { price: 12 } },
    monitor: { id: monitorId, object: "monitor", last_run: { task_id: changed.id } },
  });
});
