/**
 * Tasks across a fleet (three server processes behind HAProxy on one
 * Postgres and Redis): tasks created through the balancer are run by more
 * than one instance, each once; a task followed on one instance while
 * another runs it streams to its end; and one canceled through another
 * instance than the one running it stops there within seconds, held open
 * though it was by search providers that take twenty seconds.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { jsonOf, type TestAccount } from "../helpers/app.ts";
import { fleetRunnable, startFleet, type Fleet } from "../helpers/fleet.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

const SLOW_MS = 20_000;

let world: SearchWorld;
let fleet: Fleet;
let owner: TestAccount;

beforeAll(async () => {
  if (!fleetRunnable) return;
  world = startSearchWorld({ spawned: true });
  world.slowOver("glacier", SLOW_MS);
  fleet = await startFleet({
    env: world.env({ PROVIDER_TIMEOUT_MS: String(SLOW_MS * 2), TASK_POLL_SECONDS: "0.5", SEARCH_DEADLINE_MS: String(SLOW_MS * 3) }),
  });
  owner = await fleet.account({ name: "tasks", limit: 100_000 });
});
afterAll(async () => {
  await fleet?.close();
  world?.stop();
});

const headers = () => ({ "X-API-Key": owner.apiKey, "content-type": "application/json" });
const create = (base: string, prompt: string) =>
  jsonOf(fetch(`${base}/v1/tasks`, { method: "POST", headers: headers(), body: JSON.stringify({ prompt }) }));

/** The statuses of a task's event stream, read on `base` to its end. */
async function statusesOn(base: string, id: string): Promise<string[]> {
  const text = await (await fetch(`${base}/v1/tasks/${id}/events`, { headers: headers() })).text();
  return [...text.matchAll(/^data: (.*)$/gm)]
    .map((m) => JSON.parse(m[1]!))
    .filter((e) => e.type === "status")
    .map((e) => e.status);
}

/** Which instances logged running the task (each instance's `task` line). */
const ranOn = (id: string) => fleet.instances.filter((instance) => instance.output().includes(`"task_id":"${id}"`)).map((i) => i.name);

test.skipIf(!fleetRunnable)("tasks created through the balancer are run across the instances, each once, to success", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push((await create(fleet.url, `What did the council decide about the river bridge? (${i})`)).id);
  for (const id of ids) expect(await statusesOn(fleet.url, id)).toEqual(["queued", "running", "succeeded"]);
  const runners = ids.map((id) => ranOn(id));
  for (const names of runners) expect(names).toHaveLength(1);
  expect(new Set(runners.flat()).size).toBeGreaterThan(1);
});

test.skipIf(!fleetRunnable)(
  "a task followed on one instance while another runs it, canceled through a third, stops where it runs",
  async () => {
    const [a, b, c] = fleet.instances as [Fleet["instances"][0], Fleet["instances"][0], Fleet["instances"][0]];
    const task = await create(a.url, "How fast do glaciers move?");
    let runner: string | undefined;
    for (const until = Date.now() + 15_000; !runner && Date.now() < until; ) {
      runner = ranOn(task.id)[0] ?? (await runningSomewhere());
      if (!runner) await Bun.sleep(100);
    }
    expect(runner).toBeDefined();
    const running = fleet.instances.find((instance) => instance.name === runner)!;
    const elsewhere = [a, b, c].find((instance) => instance.name !== runner)!;
    const followed = statusesOn(elsewhere.url, task.id);
    const started = Date.now();
    const canceled = await fetch(`${[a, b, c].find((i) => i !== running && i !== elsewhere)!.url}/v1/tasks/${task.id}/cancel`, {
      method: "POST",
      headers: headers(),
    });
    expect(canceled.status).toBe(200);
    expect(await followed).toEqual(["queued", "running", "canceled"]);
    // The run itself ends on the instance running it, long before its providers would have answered.
    for (const until = Date.now() + 5_000; Date.now() < until; ) {
      const ready = await jsonOf(fetch(`${running.url}/readyz`));
      if (ready.runs.running === 0) break;
      await Bun.sleep(100);
    }
    expect((await jsonOf(fetch(`${running.url}/readyz`))).runs.running).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);

    /** The instance whose /readyz shows a research run executing. */
    async function runningSomewhere(): Promise<string | undefined> {
      for (const instance of fleet.instances) if ((await jsonOf(fetch(`${instance.url}/readyz`))).runs.running > 0) return instance.name;
      return undefined;
    }
  },
);
