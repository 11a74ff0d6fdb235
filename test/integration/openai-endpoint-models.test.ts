/**
 * Designed and published endpoints as models of the OpenAI-compatible face,
 * through OpenAI's SDK: listed for their owner (and a published one for its
 * subscribers), private to their owner otherwise, called with their inputs
 * in the last user message (a JSON object, or plain text for the one input a
 * call must give), answering what their own route answers, and billed as
 * their own route bills: the version on the usage record, the publisher's
 * share for a published one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client as restClient, landmarkEndpoint } from "../helpers/endpoints.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { root } from "../helpers/process.ts";
import { openAiSnippets } from "../../src/dashboard/web/openai-snippets.ts";
import { rmSync } from "node:fs";
import { join } from "node:path";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let owner: TestAccount;
let other: TestAccount;
let stub: string;
let apiId: number;
let publicStub: string;
let integration: { url: string; example_request: unknown };

const sdk = (account: TestAccount) => new OpenAI({ apiKey: account.apiKey, baseURL: `${app.url}/v1`, maxRetries: 0 });

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: world.env(), resolver: world.resolver });
  owner = await app.account({ name: "owner", limit: 100_000 });
  other = await app.account({ name: "other", limit: 100_000 });
  const designed = (await restClient(app, owner.apiKey).json("POST", "/v1/design-api", landmarkEndpoint)).response;
  stub = designed.stub;
  apiId = designed.id;
  integration = designed.integration;
  publicStub = `landmarks-${crypto.randomUUID().slice(0, 8)}`;
  await restClient(app, owner.apiKey).json("POST", `/v1/design-api/${apiId}/publish`, { public_stub: publicStub });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

async function usageOf(requestId: string) {
  await app.usage.flush();
  return app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.requestId, requestId) });
}

describe("a designed endpoint as the model endpoint:<stub>", () => {
  test("listed and retrieved for its owner; another account sees nothing and gets a 404", async () => {
    const mine = [];
    for await (const model of sdk(owner).models.list()) mine.push(model.id);
    expect(mine).toEqual(["search", `endpoint:${stub}`]);
    expect((await sdk(owner).models.retrieve(`endpoint:${stub}`)).id).toBe(`endpoint:${stub}`);
    const theirs = [];
    for await (const model of sdk(other).models.list()) theirs.push(model.id);
    expect(theirs).toEqual(["search"]);
    expect(
      await sdk(other)
        .models.retrieve(`endpoint:${stub}`)
        .catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);
    const call = await sdk(other)
      .chat.completions.create({ model: `endpoint:${stub}`, messages: [{ role: "user", content: "Eiffel Tower" }] })
      .catch((e: unknown) => e);
    expect(call).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("plain text fills its one required input; the content is what its own route answers, billed to the version", async () => {
    const own = await jsonOf(restClient(app, owner.apiKey).call("POST", `/v1/user-defined-service/${stub}`, { landmark: "Eiffel Tower" }));
    const response = await sdk(owner)
      .chat.completions.create({ model: `endpoint:${stub}`, messages: [{ role: "user", content: "Eiffel Tower" }] })
      .withResponse();
    const completion = response.data;
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual(own.response);
    expect(completion.usage!.total_tokens).toBe(own.info.token_usage);
    const [row] = await usageOf(response.response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ route: "POST /v1/chat/completions", status: 200, apiId, tokens: own.info.token_usage });
  });

  test("a JSON object gives its inputs; streamed, the answer comes whole; text that is not JSON is a 400 naming the message", async () => {
    const stream = await sdk(owner).chat.completions.create({
      model: `endpoint:${stub}`,
      messages: [{ role: "user", content: JSON.stringify({ landmark: "Eiffel Tower", city: "Paris" }) }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(["completed_year", "designer", "height_metres"]);
    const error = (await sdk(owner)
      .chat.completions.create({ model: `endpoint:${stub}`, messages: [{ role: "user", content: "{not json" }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe("messages[0].content");
  });

  test("the Responses API calls it too", async () => {
    const response = await sdk(owner).responses.create({ model: `endpoint:${stub}`, input: "Eiffel Tower" });
    expect(Object.keys(JSON.parse(response.output_text)).sort()).toEqual(["completed_year", "designer", "height_metres"]);
  });
});

describe("the dashboard's OpenAI-compatible snippets", () => {
  test("the OpenAI SDK and Vercel AI SDK samples work as written against the running server", async () => {
    const snippets = openAiSnippets(integration.url, `endpoint:${stub}`, integration.example_request);
    for (const [name, code] of Object.entries(snippets)) {
      // Written inside the checkout, so the samples' imports resolve to its node_modules as a user's project would.
      const file = join(root, `.snippet-${name}-${crypto.randomUUID().slice(0, 8)}.ts`);
      await Bun.write(file, code);
      try {
        const child = Bun.spawn([process.execPath, file], {
          cwd: root,
          env: { PATH: process.env.PATH ?? "", CRITIQUE_API_KEY: owner.apiKey },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [out, errors, exit] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
        expect({ name, exit, errors }).toEqual({ name, exit: 0, errors: "" });
        expect(Object.keys(JSON.parse(out)).sort()).toEqual(["completed_year", "designer", "height_metres"]);
      } finally {
        rmSync(file, { force: true });
      }
    }
  });
});

describe("a published endpoint as the model published:<public_stub>", () => {
  test("callable by any account, listed once subscribed, and billed with its publisher on the record", async () => {
    const before = [];
    for await (const model of sdk(other).models.list()) before.push(model.id);
    expect(before).not.toContain(`published:${publicStub}`);
    await restClient(app, other.apiKey).json("POST", `/v1/marketplace/${publicStub}/subscribe`);
    const after = [];
    for await (const model of sdk(other).models.list()) after.push(model.id);
    expect(after).toEqual(["search", `published:${publicStub}`]);
    const response = await sdk(other)
      .chat.completions.create({ model: `published:${publicStub}`, messages: [{ role: "user", content: "Eiffel Tower" }] })
      .withResponse();
    expect(Object.keys(JSON.parse(response.data.choices[0]!.message.content!)).sort()).toEqual([
      "completed_year",
      "designer",
      "height_metres",
    ]);
    const [row] = await usageOf(response.response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      accountId: other.accountId,
      route: "POST /v1/chat/completions",
      status: 200,
      publisherAccountId: owner.accountId,
    });
    expect(
      await sdk(other)
        .models.retrieve("published:no-such-listing")
        .catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
