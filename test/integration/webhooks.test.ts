/**
 * Webhooks on the real app and its job queue: a task's end delivered to a
 * loopback receiver that refuses the first two attempts, each message
 * checked by the standardwebhooks package's own verifier with the secret
 * the API gives; the deliveries list with every attempt; a rotation (both
 * secrets sign for a while); a redelivery; webhook URLs that are not public
 * refused when given, and a name that resolves to a private address refused
 * at delivery; a receiver's words never logged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { StaticResolver } from "../../src/contents/egress/resolver.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startWebhookReceiver } from "../helpers/webhook-receiver.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

// Refuses each message's first two attempts with a 500 and words of its own, which must never be logged.
const receiver = startWebhookReceiver({ refuseFirst: 2 });
const RECEIVER = { ...receiver, url: receiver.url() };
const intranet = new StaticResolver({ "intranet.example.com": ["10.1.2.3"] });
let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;

const QUESTION = "What did the council decide about the river bridge?";

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  const env = world.env();
  app = await startTestApp(database, {
    env: {
      ...env,
      FETCH_ALLOW_HOSTS: `${env.FETCH_ALLOW_HOSTS},127.0.0.1:${RECEIVER.port}`,
      TASK_POLL_SECONDS: "0.5",
      WEBHOOK_RETRY_BASE_SECONDS: "0.3",
      WEBHOOK_RETRY_HOURS: "0.002",
    },
    // The world's names, and one that points inside the network.
    resolver: {
      resolve: (host) => (host === "intranet.example.com" ? intranet.resolve(host) : world.resolver.resolve(host)),
    },
  });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
  RECEIVER.stop();
});

const headers = () => ({ "X-API-Key": apiKey, "content-type": "application/json" });
const create = (body: unknown) => app.fetch("/v1/tasks", { method: "POST", headers: headers(), body: JSON.stringify(body) });

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

const deliveriesOf = async (type: string) =>
  (await jsonOf(app.fetch("/v1/webhooks/deliveries?limit=100", { headers: headers() }))).data.filter(
    (d: { event_type: string }) => d.event_type === type,
  );

describe("a task's webhook", () => {
  test("task.succeeded reaches a receiver that refused it twice, verified by standardwebhooks with the account's secret", async () => {
    const secret = (await jsonOf(app.fetch("/v1/webhooks/secret", { headers: headers() }))).secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const task = await jsonOf(create({ prompt: QUESTION, webhook: { url: RECEIVER.url }, metadata: { order: 1 } }));
    expect(task.webhook).toEqual({ url: RECEIVER.url });

    const mine = () => RECEIVER.received.filter((r) => JSON.parse(r.body).data.task.id === task.id);
    await until("three attempts", async () => mine().length >= 3);
    const attempts = mine();
    expect(attempts).toHaveLength(3);
    // One message, tried three times: the same id, each attempt signed afresh, every signature valid.
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    const verifier = new Webhook(secret);
    for (const attempt of attempts) {
      const payload = verifier.verify(attempt.body, attempt.headers) as { type: string; data: { task: any } };
      expect(payload.type).toBe("task.succeeded");
      expect(payload.data.task).toMatchObject({ id: task.id, status: "succeeded", metadata: { order: 1 } });
      expect(payload.data.task.result.response).toContain("[");
    }
    // A forged body fails the same verifier.
    expect(() => verifier.verify(attempts[0]!.body.replace("succeeded", "failed"), attempts[0]!.headers)).toThrow();

    const [delivery] = await until("the delivery delivered", async () => {
      const found = await deliveriesOf("task.succeeded");
      return found.length > 0 && found[0].status === "delivered" ? found : null;
    });
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, last_status: 200, url: RECEIVER.url, last_error: null });
    expect(delivery.id).toBe(attempts[0]!.headers["webhook-id"]);
    const detail = await jsonOf(app.fetch(`/v1/webhooks/deliveries/${delivery.id}`, { headers: headers() }));
    expect(detail.attempt_log.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
    expect(detail.attempt_log[0].error).toBe("the receiver answered 500");
    expect(detail.payload.type).toBe("task.succeeded");
    // The receiver's own words are nowhere: not in the deliveries, not in a log line.
    expect(JSON.stringify(detail)).not.toContain("RECEIVER-SECRET-WORDS");
    expect(app.logs.join("\n")).not.toContain("RECEIVER-SECRET-WORDS");
    expect(app.logs.join("\n")).not.toContain("10.9.8.7");

    // Delivered again on request: the same webhook-id, so the receiver can tell it has it.
    const redelivered = await app.fetch(`/v1/webhooks/deliveries/${delivery.id}/redeliver`, { method: "POST", headers: headers() });
    expect(redelivered.status).toBe(202);
    await until("the redelivery", async () => mine().length >= 4);
    expect(mine()[3]!.headers["webhook-id"]).toBe(delivery.id);
  });

  test("a canceled task's webhook says task.canceled", async () => {
    world.slowOver("ferry", 3_000);
    const free = await app.account();
    const key = { "X-API-Key": free.apiKey, "content-type": "application/json" };
    // A Free account runs one task at a time: the second waits, and is canceled while it does.
    await app.fetch("/v1/tasks", { method: "POST", headers: key, body: JSON.stringify({ prompt: "When does the ferry cross?" }) });
    const second = await jsonOf(
      app.fetch("/v1/tasks", { method: "POST", headers: key, body: JSON.stringify({ prompt: QUESTION, webhook: { url: RECEIVER.url } }) }),
    );
    await app.fetch(`/v1/tasks/${second.id}/cancel`, { method: "POST", headers: key });
    const secret = (await jsonOf(app.fetch("/v1/webhooks/secret", { headers: key }))).secret as string;
    const message = await until("task.canceled", async () =>
      RECEIVER.received.find((r) => {
        const body = JSON.parse(r.body);
        return body.type === "task.canceled" && body.data.task.id === second.id;
      }),
    );
    expect((new Webhook(secret).verify(message.body, message.headers) as any).data.task.status).toBe("canceled");
  });

  test("after a rotation both secrets sign for a while, so either verifies", async () => {
    const before = (await jsonOf(app.fetch("/v1/webhooks/secret", { headers: headers() }))).secret as string;
    const rotated = await jsonOf(app.fetch("/v1/webhooks/secret/rotate", { method: "POST", headers: headers() }));
    expect(rotated.secret).not.toBe(before);
    expect(Date.parse(rotated.previous_secret_expires_at)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const task = await jsonOf(create({ prompt: QUESTION, webhook: { url: RECEIVER.url } }));
    const message = await until("the message", async () => RECEIVER.received.find((r) => JSON.parse(r.body).data.task.id === task.id));
    expect(message.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(() => new Webhook(before).verify(message.body, message.headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(message.body, message.headers)).not.toThrow();
  });
});

describe("webhook URLs that are not public", () => {
  test("refused when given: private and loopback addresses, internal names, credentials, plain http", async () => {
    for (const url of [
      "https://10.0.0.1/hook",
      "https://127.0.0.1/hook",
      "https://[::1]/hook",
      "https://169.254.169.254/latest",
      "https://localhost/hook",
      "https://printer.local/hook",
      "https://user:secret@hooks.example.com/x",
      "http://hooks.example.com/x",
      "ftp://hooks.example.com/x",
      "not a url",
    ]) {
      const response = await create({ prompt: QUESTION, webhook: { url } });
      expect({ url, status: response.status }).toEqual({ url, status: 422 });
      expect((await response.json()).detail[0].loc).toEqual(["body", "webhook", "url"]);
    }
  });

  test("a name that resolves to a private address is refused at delivery, and given up when its window closes", async () => {
    const task = await jsonOf(create({ prompt: QUESTION, webhook: { url: "https://intranet.example.com/hook" } }));
    expect(task.status).toBe("queued");
    const delivery = await until(
      "the delivery given up",
      async () =>
        (await deliveriesOf("task.succeeded")).find((d: any) => d.url === "https://intranet.example.com/hook" && d.status === "failed"),
      30_000,
    );
    expect(delivery.last_status).toBeNull();
    expect(delivery.last_error).toBe("refused: the URL's host is not a public address this service may call");
    expect(JSON.stringify(delivery)).not.toContain("10.1.2.3");
  });
});

describe("the deliveries API", () => {
  test("another account sees none of them, and a delivery of another account is a 404", async () => {
    const stranger = await app.account({ limit: 100_000 });
    const theirs = { "X-API-Key": stranger.apiKey };
    expect((await jsonOf(app.fetch("/v1/webhooks/deliveries", { headers: theirs }))).data).toEqual([]);
    const [one] = await deliveriesOf("task.succeeded");
    for (const [path, method] of [
      [`/v1/webhooks/deliveries/${one.id}`, "GET"],
      [`/v1/webhooks/deliveries/${one.id}/redeliver`, "POST"],
    ] as const)
      expect((await app.fetch(path, { method, headers: theirs })).status).toBe(404);
    const mineSecret = (await jsonOf(app.fetch("/v1/webhooks/secret", { headers: headers() }))).secret;
    expect((await jsonOf(app.fetch("/v1/webhooks/secret", { headers: theirs }))).secret).not.toBe(mineSecret);
  });
});
