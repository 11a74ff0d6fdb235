/**
 * Any instance serves any MCP request (issue 25, item 1): through the
 * balancer, which sends each request to the next instance in turn, a
 * session initialised on one is used, and ended, on the others.
 */
import { afterAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fleetOnDemand } from "../helpers/fleet.ts";

const onDemand = fleetOnDemand();
/** Started by the first test that runs. */
const theFleet = async () => (await onDemand.get()).fleet;
afterAll(() => onDemand.stop());

const textOf = (result: Record<string, unknown>) =>
  ((result.content ?? []) as { type: string; text?: string }[])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

// Before sessions were shared state, a session lived in the memory of the instance that opened it: the next request, on
// another instance, was a 404.
test("a session initialised through the balancer lists its tools, searches and is deleted, each request on the next instance", async () => {
  const f = await theFleet();
  const { apiKey } = await f.account({ name: "agent", limit: 100_000 });
  const transport = new StreamableHTTPClientTransport(new URL(`${f.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  const mcp = new Client({ name: "fleet-test", version: "1.0.0" });
  await mcp.connect(transport);
  try {
    for (let i = 0; i < 3; i++) expect((await mcp.listTools()).tools.map((t) => t.name).slice(0, 2)).toEqual(["search", "contents"]);
    const result = await mcp.callTool({ name: "search", arguments: { prompt: "When was the Eiffel Tower completed?" } });
    expect(textOf(result)).toContain("1889");
    await transport.terminateSession();
  } finally {
    await mcp.close();
  }
});
