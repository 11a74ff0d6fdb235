/**
 * A task outlives the instance that ran it: the server (src/main.ts, as an
 * operator starts it) takes a task, is killed with SIGKILL mid-run, and
 * another server on the same database (the embedded one restarted on its
 * folder, or a Postgres with TEST_DATABASE_URL) runs it again, within two
 * minutes, to success, billed once.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";
import { startServer, waitForOutput, type ServerProcess } from "../helpers/process.ts";
import { startSearchWorld } from "../helpers/search-world.ts";

const KEY_LINE = /export CRITIQUE_API_KEY=(sk_live_[0-9A-Za-z]{46})/;

const world = startSearchWorld({ spawned: true });
const servers: ServerProcess[] = [];
let database: TestDatabase | undefined;
const dataDir = mkdtempSync(join(tmpdir(), "as-tasks-"));
afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) await server.stop("SIGKILL");
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  world.stop();
});

async function start(): Promise<ServerProcess> {
  const server = await startServer(
    world.env({
      ...(database?.url ? { DATABASE_URL: database.url } : { DATA_DIR: dataDir }),
      LOG_LEVEL: "info",
      TASK_HEARTBEAT_SECONDS: "10",
      TASK_POLL_SECONDS: "0.5",
      // The slow providers hold the run open; nothing cuts them first.
      PROVIDER_TIMEOUT_MS: "60000",
      SEARCH_DEADLINE_MS: "90000",
    }),
    90_000,
  );
  servers.push(server);
  return server;
}

/** Reads the task's event stream until `until` says stop (or it ends); answers the events' data. */
async function follow(server: ServerProcess, key: string, id: string, until: (event: any) => boolean): Promise<any[]> {
  const response = await fetch(`${server.url}/v1/tasks/${id}/events`, { headers: { "X-API-Key": key } });
  expect(response.status).toBe(200);
  const seen: any[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body!) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").find((line) => line.startsWith("data: "));
      if (!data) continue;
      seen.push(JSON.parse(data.slice(6)));
      if (until(seen.at(-1))) {
        await response.body!.cancel().catch(() => {});
        return seen;
      }
    }
  }
  return seen;
}

test("a task whose instance is killed mid-run is run again by the next instance, to success, billed once", async () => {
  if (TEST_DATABASE_URL) database = await freshDatabase();
  world.slowOver("lighthouse", 60_000);
  const first = await start();
  const key = (await waitForOutput(first, KEY_LINE, 30_000))[1]!;
  const headers = { "X-API-Key": key, "content-type": "application/json" };
  const created = await fetch(`${first.url}/v1/tasks`, {
    method: "POST",
    headers,
    body: JSON.stringify({ prompt: "Who keeps the lighthouse by the river bridge?" }),
  });
  expect(created.status).toBe(202);
  const task = (await created.json()) as { id: string };
  await follow(first, key, task.id, (event) => event.type === "status" && event.status === "running");

  first.child.kill("SIGKILL");
  await first.child.exited;
  const killedAt = Date.now();
  world.slowOver("lighthouse", 0);

  const second = await start();
  const events = await follow(
    second,
    key,
    task.id,
    (event) => event.type === "status" && ["succeeded", "failed", "canceled"].includes(event.status),
  );
  const recoveredMs = Date.now() - killedAt;
  expect(events.at(-1)).toEqual({ type: "status", status: "succeeded" });
  expect(events.filter((event) => event.type === "status" && event.status === "running").map((event) => event.attempt)).toEqual([1, 2]);
  expect(recoveredMs).toBeLessThan(120_000);
  console.log(`task run again and finished ${recoveredMs} ms after its instance was killed`);

  const done = (await (await fetch(`${second.url}/v1/tasks/${task.id}`, { headers })).json()) as any;
  expect(done).toMatchObject({ status: "succeeded", attempts: 2 });
  expect(done.result.response).toContain("[");
  const usage = (await (await fetch(`${second.url}/v1/usage`, { headers })).json()) as {
    recent: { route: string; request_id: string; tokens: number }[];
  };
  const billed = usage.recent.filter((call) => call.route === "POST /v1/tasks (run)");
  expect(billed).toHaveLength(1);
  expect(billed[0]).toMatchObject({ request_id: task.id, tokens: done.result.info.token_usage });
}, 240_000);

test("a healthy task that runs longer than its heartbeat is never taken for dead: one attempt", async () => {
  // The server the test above started second, on the same database and account.
  const server = servers.at(-1)!;
  const key = (await waitForOutput(servers[0]!, KEY_LINE, 30_000))[1]!;
  world.slowOver("harbour", 25_000);
  const created = await fetch(`${server.url}/v1/tasks`, {
    method: "POST",
    headers: { "X-API-Key": key, "content-type": "application/json" },
    body: JSON.stringify({ prompt: "What happened at the harbour bridge?" }),
  });
  const task = (await created.json()) as { id: string };
  const events = await follow(
    server,
    key,
    task.id,
    (event) => event.type === "status" && ["succeeded", "failed", "canceled"].includes(event.status),
  );
  expect(events.at(-1)).toEqual({ type: "status", status: "succeeded" });
  expect(events.filter((event) => event.type === "status" && event.status === "running").map((event) => event.attempt)).toEqual([1]);
}, 120_000);
