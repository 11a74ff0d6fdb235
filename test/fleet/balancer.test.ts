/**
 * The fleet as a client sees it: three instances of `npm start` on one
 * Postgres and one Redis behind HAProxy answer cheap calls and searches over
 * a loopback web, round-robin, every instance in its turn; and the harness's
 * verbs do what the other fleet tests rely on (an instance stopped is taken
 * out of rotation, started again it is back).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { startFleet, type Fleet } from "../helpers/fleet.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let world: SearchWorld;
let fleet: Fleet;

beforeAll(async () => {
  world = startSearchWorld({ spawned: true });
  fleet = await startFleet({ env: world.env() });
});
afterAll(async () => {
  await fleet?.close();
  world?.stop();
});

const post = (url: string, apiKey: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "X-API-Key": apiKey, "content-type": "application/json" }, body: JSON.stringify(body) });

test("cheap calls through the balancer go round-robin to all three instances, and every one answers", async () => {
  const { apiKey } = await fleet.account({ name: "round robin", limit: 100_000 });
  const served: string[] = [];
  for (let i = 0; i < 9; i++) {
    const response = await fetch(`${fleet.url}/v1/account`, { headers: { "X-API-Key": apiKey } });
    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toMatchObject({ name: "round robin", plan: "enterprise" });
    served.push(fleet.instanceOf(response)!);
  }
  // Round-robin: each instance three times, never the same one twice in a row.
  for (const name of ["a", "b", "c"]) expect(served.filter((s) => s === name).length).toBe(3);
  expect(served.some((name, i) => i > 0 && served[i - 1] === name)).toBe(false);
});

test("searches over the loopback web answer through the balancer on each of the three instances", async () => {
  const { apiKey } = await fleet.account({ name: "searches", limit: 100_000 });
  const served = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const response = await post(`${fleet.url}/v1/search`, apiKey, { prompt: "When was the Eiffel Tower completed?" });
    expect(response.status).toBe(200);
    served.add(fleet.instanceOf(response)!);
    const body = await jsonOf(response);
    expect(body.response).toContain("1889");
    expect(body.context[0].metadata.url).toBe(world.url("wiki.test", "/eiffel.html"));
  }
  expect([...served].sort()).toEqual(["a", "b", "c"]);
  // The pages were read: the loopback web served them to the instances.
  expect(world.site.hits.get("/eiffel.html")).toBeGreaterThan(0);
});

test("an instance stopped (SIGTERM) exits 0 and leaves the rotation; started again, it is back in it", async () => {
  const { apiKey } = await fleet.account({ name: "harness", limit: 100_000 });
  const [, second] = fleet.instances;
  expect(await second!.stop()).toBe(0);
  await fleet.balancer.waitFor("b", "DOWN");
  const whileDown = new Set<string>();
  for (let i = 0; i < 6; i++) {
    const response = await fetch(`${fleet.url}/v1/account`, { headers: { "X-API-Key": apiKey } });
    expect(response.status).toBe(200);
    whileDown.add(fleet.instanceOf(response)!);
  }
  expect([...whileDown].sort()).toEqual(["a", "c"]);
  await second!.start();
  expect((await fleet.balancer.backends()).map((b) => `${b.name} ${b.status}`)).toEqual(["a UP", "b UP", "c UP"]);
  const direct = await fetch(`${second!.url}/v1/account`, { headers: { "X-API-Key": apiKey } });
  expect(direct.status).toBe(200);
});
