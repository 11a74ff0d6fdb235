/**
 * The marketplace: publishing (a release plus an immutable snapshot under a
 * public stub), browsing, running another account's published endpoint, and
 * the money: consumers pay, publishers earn their share.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let publisher: ReturnType<typeof client>;
let consumer: ReturnType<typeof client>;
let freeConsumer: ReturnType<typeof client>;
let consumerAccount: string;
let freeAccount: string;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({ PRICE_PER_MILLION_TOKENS: "100", PUBLISHER_SHARE: "0.5" }),
    resolver: world.resolver,
  });
  publisher = client(app, (await app.account({ name: "Publisher Ltd", credit: 10 })).apiKey);
  const paying = await app.account({ name: "consumer", credit: 10 });
  consumerAccount = paying.accountId;
  consumer = client(app, paying.apiKey);
  const free = await app.account({ name: "free consumer" });
  freeAccount = free.accountId;
  freeConsumer = client(app, free.apiKey);
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

const publishNew = async (body: Record<string, unknown> = {}) => {
  const draft = (await publisher.json("POST", "/v1/design-api", landmarkEndpoint)).response;
  const response = await publisher.call("POST", `/v1/design-api/${draft.id}/publish`, body);
  expect(response.status).toBe(200);
  return { draft, published: (await response.json()) as Record<string, any> };
};

describe("publishing", () => {
  test("a draft is released, then snapshotted under a public stub; the answer has its own integration object", async () => {
    const { draft, published } = await publishNew({
      public_stub: "landmark-facts",
      title: "Landmark facts",
      description: "Completion year, height and designer of a landmark",
      category: "Travel",
      tags: ["Landmarks", "facts"],
    });
    expect(published).toMatchObject({
      public_stub: "landmark-facts",
      published_version: 1,
      title: "Landmark facts",
      category: "Travel",
      tags: ["landmarks", "facts"],
      publisher: "Publisher Ltd",
      latest_version: 1,
    });
    const base = `${app.url}/v1/published-service/landmark-facts`;
    expect(published.integration).toMatchObject({ url: base, versioned_url: `${base}/v1` });
    expect(await publisher.json("GET", `/v1/design-api/${draft.id}`)).toMatchObject({ state: "released", is_live: true });
  });

  test("publishing again adds the next published version under the same stub", async () => {
    const { draft, published } = await publishNew({ public_stub: "landmark-facts-two" });
    const v2 = (await publisher.json("POST", `/v1/design-api/${draft.id}/versions`)).response;
    await publisher.json("PATCH", `/v1/design-api/${v2.id}`, { api_name: "Landmark facts, second edition" });
    const again = await publisher.json("POST", `/v1/design-api/${v2.id}/publish`, null);
    expect(again).toMatchObject({ public_stub: published.public_stub, published_version: 2, latest_version: 2 });
    expect(again.versions.map((v: { version: number; source_version: number }) => [v.version, v.source_version])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  test("publishing an unchanged version again is refused (409, naming the version): the listing keeps one version", async () => {
    const { draft, published } = await publishNew({ public_stub: "unchanged-twice" });
    const again = await publisher.call("POST", `/v1/design-api/${draft.id}/publish`, {});
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: "conflict",
      detail:
        'this version is already published, unchanged, as version 1 of "unchanged-twice"; change the endpoint (a new version of it, edited) and publish that to add a version',
    });
    // A new version with nothing changed says nothing new either; its draft stays a draft (the refusal released nothing).
    const copy = (await publisher.json("POST", `/v1/design-api/${draft.id}/versions`)).response;
    expect((await publisher.call("POST", `/v1/design-api/${copy.id}/publish`, {})).status).toBe(409);
    expect(await publisher.json("GET", `/v1/design-api/${copy.id}`)).toMatchObject({ state: "draft" });
    const listing = await consumer.json("GET", `/v1/marketplace/${published.public_stub}`);
    expect(listing.versions.map((v: { version: number }) => v.version)).toEqual([1]);
    // A real change publishes as the next version.
    await publisher.json("PATCH", `/v1/design-api/${copy.id}`, {
      original_prompt: `${landmarkEndpoint.original_prompt} Include the year it opened.`,
    });
    const changed = await publisher.json("POST", `/v1/design-api/${copy.id}/publish`, {});
    expect(changed).toMatchObject({ public_stub: "unchanged-twice", published_version: 2, latest_version: 2 });
  });

  test("public stubs are global: a taken one is 409, a malformed one 422, and a published endpoint keeps its stub", async () => {
    await publishNew({ public_stub: "unique-stub-a" });
    const other = client(app, (await app.account({ name: "rival", limit: 100_000 })).apiKey);
    const rivalDraft = (await other.json("POST", "/v1/design-api", landmarkEndpoint)).response;
    expect((await other.call("POST", `/v1/design-api/${rivalDraft.id}/publish`, { public_stub: "unique-stub-a" })).status).toBe(409);
    for (const bad of ["Has Spaces", "v2", "-leading", "x".repeat(65)])
      expect((await other.call("POST", `/v1/design-api/${rivalDraft.id}/publish`, { public_stub: bad })).status).toBe(422);
    const { draft } = await publishNew({ public_stub: "keeps-its-stub" });
    expect((await publisher.call("POST", `/v1/design-api/${draft.id}/publish`, { public_stub: "another-stub" })).status).toBe(409);
  });
});

describe("browsing", () => {
  test("search by text, category and tag, paginated; one listing in detail with schemas and an example", async () => {
    await publishNew({ public_stub: "browse-me", title: "Browsable towers", category: "Architecture", tags: ["towers"] });
    const byText = await consumer.json("GET", "/v1/marketplace?q=browsable");
    expect(byText.items.map((i: { public_stub: string }) => i.public_stub)).toEqual(["browse-me"]);
    expect(
      (await consumer.json("GET", "/v1/marketplace?category=architecture")).items.map((i: { public_stub: string }) => i.public_stub),
    ).toEqual(["browse-me"]);
    expect((await consumer.json("GET", "/v1/marketplace?tag=towers")).items.map((i: { public_stub: string }) => i.public_stub)).toEqual([
      "browse-me",
    ]);
    const page = await consumer.json("GET", "/v1/marketplace?per_page=2&page=1");
    expect(page.items.length).toBe(2);
    expect(page.total).toBeGreaterThanOrEqual(4);
    const next = await consumer.json("GET", "/v1/marketplace?per_page=2&page=2");
    expect(next.items[0].public_stub).not.toBe(page.items[0].public_stub);
    const detail = await consumer.json("GET", "/v1/marketplace/browse-me");
    expect(detail).toMatchObject({ public_stub: "browse-me", api_name: "Landmark facts", output_format: landmarkEndpoint.output_format });
    expect(detail.integration.request_schema.required).toEqual(["landmark"]);
    expect(detail.example_request).toEqual(detail.integration.example_request);
    expect((await consumer.call("GET", "/v1/marketplace/nope-not-here")).status).toBe(404);
  });

  test("every listing on a page carries its own versions, read for the whole page at once", async () => {
    const twice = await publishNew({ public_stub: "published-twice" });
    const next = (await publisher.json("POST", `/v1/design-api/${twice.draft.id}/versions`)).response;
    await publisher.json("PATCH", `/v1/design-api/${next.id}`, { api_name: "Landmark facts, revised" });
    expect((await publisher.call("POST", `/v1/design-api/${next.id}/publish`, {})).status).toBe(200);
    const all = await consumer.json("GET", "/v1/marketplace?per_page=100");
    for (const item of all.items as { public_stub: string; latest_version: number; versions: { version: number }[] }[]) {
      const detail = await consumer.json("GET", `/v1/marketplace/${item.public_stub}`);
      expect({ stub: item.public_stub, versions: item.versions }).toEqual({ stub: detail.public_stub, versions: detail.versions });
      expect(item.latest_version).toBe(Math.max(...item.versions.map((v) => v.version)));
    }
    expect(
      all.items
        .find((i: { public_stub: string }) => i.public_stub === "published-twice")
        .versions.map((v: { version: number }) => v.version),
    ).toEqual([1, 2]);
  });

  test("a fractional page size is floored, not a failure", async () => {
    const response = await consumer.call("GET", "/v1/marketplace?per_page=2.5&page=1.9");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect({ per_page: body.per_page, page: body.page, items: body.items.length }).toEqual({ per_page: 2, page: 1, items: 2 });
  });
});

describe("running published endpoints", () => {
  test("any authenticated account runs the newest version, or /v{n}; absent versions are 404; input rules apply", async () => {
    await publishNew({ public_stub: "run-me" });
    const response = await consumer.call("POST", "/v1/published-service/run-me", { landmark: "Eiffel Tower" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { response: { completed_year: number } }).response.completed_year).toBe(1889);
    expect((await consumer.call("POST", "/v1/published-service/run-me/v1", { landmark: "Eiffel Tower" })).status).toBe(200);
    expect((await consumer.call("POST", "/v1/published-service/run-me/v2", { landmark: "Eiffel Tower" })).status).toBe(404);
    const missing = await consumer.call("POST", "/v1/published-service/run-me", {});
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { detail: string }).detail).toBe(
      "missing required input: landmark: string (optional: city?: string, language?: string)",
    );
    expect((await consumer.call("POST", "/v1/published-service/nothing-here", { landmark: "x" })).status).toBe(404);
  });

  test("snapshots never change: the owner's edits, releases and deletion leave them as published", async () => {
    const { draft } = await publishNew({ public_stub: "frozen-contract" });
    const before = await consumer.json("GET", "/v1/marketplace/frozen-contract");
    const v2 = (await publisher.json("POST", `/v1/design-api/${draft.id}/versions`)).response;
    await publisher.call("PATCH", `/v1/design-api/${v2.id}`, {
      api_name: "Changed",
      output_format: { something_else: "string" },
      graph: { nodes: [{ id: "r", type: "search_agent", name: "R", system_prompt: "Changed prompt about {landmark}" }], edges: [] },
    });
    await publisher.call("POST", `/v1/design-api/${v2.id}/release`);
    await publisher.call("DELETE", `/v1/design-api/${draft.id}`);
    const after = await consumer.json("GET", "/v1/marketplace/frozen-contract");
    expect(after).toEqual(before);
    const seen = world.searxng.requests.length;
    const run = await consumer.call("POST", "/v1/published-service/frozen-contract", { landmark: "Eiffel Tower" });
    expect(run.status).toBe(200);
    expect(Object.keys(((await run.json()) as { response: object }).response).sort()).toEqual([
      "completed_year",
      "designer",
      "height_metres",
    ]);
    expect(
      world.searxng.requests
        .slice(seen)
        .map((r) => String(r.params.q))
        .join("\n"),
    ).toContain("Facts about Eiffel Tower");
    expect(
      await Promise.resolve(app.db.execute(sql`update published_versions set api_name = 'tampered'`)).then(
        () => "written",
        () => "refused",
      ),
    ).toBe("refused");
  });
});

describe("billing", () => {
  test("a paying consumer pays for a run; the publisher earns its share; a free consumer pays nothing; GET /v1/usage shows both sides", async () => {
    await publishNew({ public_stub: "earning-endpoint" });
    // Earlier runs' charges are buffered: settle them before reading the balance.
    await app.usage.flush();
    app.accounts.keyCache?.forgetAccount(consumerAccount);
    const balanceBefore = (await consumer.json("GET", "/v1/account")).balance;
    expect((await consumer.call("POST", "/v1/published-service/earning-endpoint", { landmark: "Eiffel Tower" })).status).toBe(200);
    expect((await freeConsumer.call("POST", "/v1/published-service/earning-endpoint", { landmark: "Eiffel Tower" })).status).toBe(200);
    // The records are made once the responses have gone out: wait for both runs' records.
    const rows = await waitFor(async () => {
      await app.usage.flush();
      const found = await app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.route, "POST /v1/published-service/:api_stub") });
      return [consumerAccount, freeAccount].every((id) => found.some((r) => r.accountId === id)) && found;
    }, "both runs' usage records");
    const paid = rows.find((r) => r.accountId === consumerAccount)!;
    expect(paid.tokens).toBeGreaterThan(0);
    // 100 dollars per million tokens: the cost in micro-dollars is 100 x tokens; the publisher gets half.
    expect(paid.costMicros).toBe(paid.tokens * 100);
    expect(paid.earningsMicros).toBe(Math.round(paid.costMicros * 0.5));
    const unpaid = rows.find((r) => r.accountId !== consumerAccount)!;
    expect(unpaid.costMicros).toBe(0);
    expect(unpaid.earningsMicros).toBe(0);

    app.accounts.keyCache?.forgetAccount(consumerAccount);
    const balanceAfter = (await consumer.json("GET", "/v1/account")).balance;
    expect(balanceAfter).toBeCloseTo(balanceBefore - paid.costMicros / 1e6, 6);

    const consumerUsage = await consumer.json("GET", "/v1/usage?days=7");
    expect(consumerUsage.days.length).toBe(7);
    expect(consumerUsage.totals.cost).toBeGreaterThan(0);
    expect(consumerUsage.recent.some((r: { route: string }) => r.route === "POST /v1/published-service/:api_stub")).toBe(true);
    // The publisher's earnings are every paying run of its endpoints by others (earlier tests ran some too).
    const earned = (
      await app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.publisherAccountId, paid.publisherAccountId!) })
    ).filter((r) => r.accountId !== paid.publisherAccountId);
    const publisherUsage = await publisher.json("GET", "/v1/usage");
    expect(publisherUsage.totals.earnings).toBeCloseTo(earned.reduce((sum, r) => sum + r.earningsMicros, 0) / 1e6, 6);
    expect(publisherUsage.totals.earnings).toBeGreaterThanOrEqual(paid.earningsMicros / 1e6);
    expect(publisherUsage.totals.earning_calls).toBe(earned.length);
  });

  test("a listing's pricing is the price per million tokens and the average of its recent successful calls, in the list and in detail", async () => {
    await publishNew({ public_stub: "priced-endpoint" });
    const unrun = await consumer.json("GET", "/v1/marketplace/priced-endpoint");
    expect(unrun.pricing).toEqual({ per_million_tokens: 100, average_tokens: null, average_cost: null, sampled_calls: 0 });

    for (const landmark of ["Eiffel Tower", "Big Ben"]) {
      expect((await consumer.call("POST", "/v1/published-service/priced-endpoint", { landmark })).status).toBe(200);
    }
    // A refused call (a missing input) costs nothing and is left out of the average.
    expect((await consumer.call("POST", "/v1/published-service/priced-endpoint", {})).status).toBe(400);
    const listing = (await app.db.query.publishedEndpoints.findFirst({ where: (p, { eq }) => eq(p.publicStub, "priced-endpoint") }))!;
    const tokens = await waitFor(async () => {
      await app.usage.flush();
      const found = await app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.publishedId, listing.id) });
      const succeeded = found.filter((r) => r.status < 400).map((r) => r.tokens);
      return found.length === 3 && succeeded;
    }, "the three calls' usage records");
    expect(tokens.length).toBe(2);
    const average = Math.round((tokens[0]! + tokens[1]!) / 2);
    const expected = { per_million_tokens: 100, average_tokens: average, average_cost: (average * 100) / 1e6, sampled_calls: 2 };

    expect((await consumer.json("GET", "/v1/marketplace/priced-endpoint")).pricing).toEqual(expected);
    const browsed = await freeConsumer.json("GET", "/v1/marketplace?q=priced-endpoint");
    expect(browsed.items.map((i: { public_stub: string; pricing: unknown }) => [i.public_stub, i.pricing])).toEqual([
      ["priced-endpoint", expected],
    ]);
    // Every listing on a page carries pricing, run or not.
    const all = await consumer.json("GET", "/v1/marketplace?per_page=100");
    for (const item of all.items as { pricing: { per_million_tokens: number; sampled_calls: number } }[]) {
      expect(item.pricing.per_million_tokens).toBe(100);
      expect(item.pricing.sampled_calls).toBeGreaterThanOrEqual(0);
    }
  });
});
