/**
 * The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli), a client we
 * did not write, lists and calls the tools of /mcp on the running app.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

const INSPECTOR = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js", import.meta.url));

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  // Nothing cut for being slow: a task's answer and the synchronous one are compared.
  app = await startTestApp(database, {
    env: world.env({ SEARCH_READ_GRACE: "false", SEARCH_QUORUM: "false", SEARCH_HEDGING: "false" }),
    resolver: world.resolver,
  });
  apiKey = (await app.account({ name: "inspector", limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

/** Runs the inspector's CLI against /mcp with the key as a bearer header; its JSON answer. */
async function inspect(...args: string[]): Promise<any> {
  const child = Bun.spawn(
    [process.execPath, INSPECTOR, `${app.url}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${apiKey}`, ...args],
    // Its build reads its own package.json by a path it checks against the working directory: run it from its folder.
    { stdout: "pipe", stderr: "pipe", cwd: dirname(INSPECTOR) },
  );
  const timer = setTimeout(() => child.kill(), 30_000);
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the inspector exited ${code}: ${err}`);
  return JSON.parse(out);
}

test("the inspector lists the tools and calls search and contents", async () => {
  const listed = await inspect("--method", "tools/list");
  expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(["search", "contents", "start_task", "get_task"]);

  const searched = await inspect(
    "--method",
    "tools/call",
    "--tool-name",
    "search",
    "--tool-arg",
    "prompt=When will construction of the river bridge begin?",
  );
  expect(searched.isError ?? false).toBe(false);
  expect(searched.content[0].text).toMatch(/\[1\]/);
  expect(searched.structuredContent.context.length).toBeGreaterThan(0);

  const read = await inspect(
    "--method",
    "tools/call",
    "--tool-name",
    "contents",
    "--tool-arg",
    `url=${world.url("news.test", "/bridge.html")}`,
    "format=text",
  );
  expect(read.content[0].text).toContain("approved the new river bridge");
}, 90_000);

test("the inspector starts a task and reads it with get_task until it succeeds, as the route shows it", async () => {
  const started = await inspect(
    "--method",
    "tools/call",
    "--tool-name",
    "start_task",
    "--tool-arg",
    "prompt=When will construction of the river bridge begin?",
  );
  expect(started.isError ?? false).toBe(false);
  const id = started.structuredContent.id as string;
  expect(id).toMatch(/^task_/);
  let read: any;
  // Each read is a process of its own (about a second): a handful at most before the loopback search is done.
  for (let i = 0; i < 20; i++) {
    read = await inspect("--method", "tools/call", "--tool-name", "get_task", "--tool-arg", `task_id=${id}`);
    if (read.structuredContent.status === "succeeded") break;
  }
  expect(read.structuredContent.status).toBe("succeeded");
  const route = await (await app.fetch(`/v1/tasks/${id}`, { headers: { "X-API-Key": apiKey } })).json();
  expect(read.structuredContent).toEqual(route);
  expect(read.content[0].text).toMatch(/\[1\]/);
}, 90_000);
