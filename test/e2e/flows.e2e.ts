/**
 * The dashboard walked as a new owner would, in Debian's Chromium: sign up,
 * make a key and use it over HTTP, watch a streamed answer, design, edit,
 * release, version and publish an endpoint; then a second owner finds it in
 * the marketplace and runs it, and never sees the first owner's things.
 * A screenshot of each main page goes to the test output.
 */
import { existsSync, readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { claimLinkFile } from "./claim-link.ts";
import { newOwner, shot, signIn, signUp } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);
test.describe.configure({ mode: "serial" });

const unique = Date.now().toString(36);
const first = newOwner("First Owner");
const second = newOwner("Second Owner");
const shared: { apiId?: string; keyId?: string; publicTitle: string } = { publicTitle: `Landmark facts ${unique}` };

test("sign-up refuses what the API refuses, with the API's message, then creates the account", async ({ page, request }, info) => {
  await page.goto("/dashboard/signup");
  await page.getByLabel("Email").fill(first.email);
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  const api = await request.post("/auth/signup", { data: { email: first.email, password: "short" } });
  const message = ((await api.json()) as { detail: { msg: string }[] }).detail[0]!.msg;
  await expect(page.getByText(message).first()).toBeVisible();
  await shot(page, info, "signup-error");
  await signUp(page, first);
  await expect(page.getByText("Free (Starter)").first()).toBeVisible();
  await shot(page, info, "usage");
});

test("a key is created, shown once, works over HTTP, and stops working when revoked", async ({ page, request }, info) => {
  await signIn(page, first);
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByLabel("Key name").fill("e2e key");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = await page.getByLabel("New API key").inputValue();
  expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{46}$/);
  await expect(page.getByText("will not be shown again")).toBeVisible();
  await shot(page, info, "keys-new-key");

  const call = await request.get("/v1/account", { headers: { "X-API-Key": secret } });
  expect(call.status()).toBe(200);
  expect(((await call.json()) as { name: string }).name).toBe(first.name);

  await page.getByRole("button", { name: "I have stored the key" }).click();
  await expect(page.getByLabel("New API key")).toHaveCount(0);
  await page.getByRole("button", { name: /^Revoke key e2e key/ }).click();
  await page.getByRole("button", { name: "Yes, revoke it" }).click();
  await expect(page.getByRole("cell", { name: /revoked/i }).first()).toBeVisible();
  expect((await request.get("/v1/account", { headers: { "X-API-Key": secret } })).status()).toBe(401);
  await shot(page, info, "keys");
});

test("credit moves the plan to Pro", async ({ page }, info) => {
  await signIn(page, first);
  await page.goto("/dashboard/usage");
  await page.getByLabel("Amount (US dollars)").fill("20");
  await page.getByRole("button", { name: "Add credit" }).click();
  await expect(page.getByText("Pro").first()).toBeVisible();
  await shot(page, info, "usage-pro");
});

test("a key is created with an expiry, then rotated with a grace period: the new key is shown once and both work meanwhile", async ({
  page,
  request,
}, info) => {
  await signIn(page, first);
  await page.goto("/dashboard/keys");
  await page.getByLabel("Key name").fill("rotating key");
  await page.getByLabel("Expires").selectOption({ label: "In 30 days" });
  await page.getByRole("button", { name: "Create key" }).click();
  const oldSecret = await page.getByLabel("New API key").inputValue();
  await page.getByRole("button", { name: "I have stored the key" }).click();
  const oldRow = page.getByRole("row", { name: /rotating key/ }).first();
  await expect(oldRow.getByRole("cell", { name: "in 30 days" })).toBeVisible();

  await page.getByRole("button", { name: /^Rotate key rotating key/ }).click();
  await page.getByLabel("The old key keeps working").selectOption({ label: "For 1 hour" });
  await page.getByRole("button", { name: "Rotate key", exact: true }).click();
  const newSecret = await page.getByLabel("New API key").inputValue();
  expect(newSecret).toMatch(/^sk_live_[0-9A-Za-z]{46}$/);
  expect(newSecret).not.toBe(oldSecret);
  await expect(page.getByText(/keeps working until/)).toBeVisible();
  await expect(page.getByRole("cell", { name: /^Rotated; works until/ })).toBeVisible();
  await expect(page.getByRole("cell", { name: "in 1 hour" })).toBeVisible();
  await shot(page, info, "keys-rotated");
  for (const secret of [oldSecret, newSecret])
    expect((await request.get("/v1/account", { headers: { "X-API-Key": secret } })).status()).toBe(200);
});

test("the playground streams an answer over the WebSocket, with citations linked to the sources", async ({ page }, info) => {
  await signIn(page, first);
  await page.getByRole("link", { name: "Playground" }).click();
  await page.getByLabel("Prompt").fill("When was the Eiffel Tower completed?");
  const frames: string[] = [];
  page.on("websocket", (socket) => socket.on("framereceived", (frame) => frames.push(String(frame.payload))));
  await page.getByRole("button", { name: "Run" }).click();
  await expect(page.getByText(/Search finished with \d+ sources?/)).toBeVisible();
  const answer = page.getByRole("region", { name: "Answer" });
  await expect(answer).toContainText("1889");
  // It arrived as a stream: the context first, then response deltas.
  const types = frames.map((f) => (JSON.parse(f) as { type: string }).type);
  expect(types[0]).toBe("context");
  expect(types.filter((t) => t === "response").length).toBeGreaterThan(0);
  const citation = page.getByRole("link", { name: "Source 1" }).first();
  await expect(citation).toHaveAttribute("href", /#pg-source-1$/);
  await citation.click();
  await expect(page.locator("#pg-source-1")).toContainText("Eiffel Tower");
  await expect(page.getByText("$CRITIQUE_API_KEY").first()).toBeVisible();
  await shot(page, info, "playground");
});

test("an endpoint is designed, edited (with the API's own validation messages), tried, released, versioned and published", async ({
  page,
  request,
}, info) => {
  await signIn(page, first);
  await page.getByRole("link", { name: "Endpoints" }).click();
  await page.getByLabel("Task description").fill("Given a landmark, find the year it was completed and its height in metres");
  await page.getByRole("button", { name: "Design endpoint" }).click();
  await expect(page.getByRole("heading", { name: /^Edit draft v1/ })).toBeVisible();
  shared.apiId = page.url().split("/").pop()!;
  await shot(page, info, "endpoint-designed");

  // A name the API refuses: the form shows the API's message for that field.
  const nameField = page.getByRole("group", { name: /^Input 1/ }).getByLabel("Name", { exact: true });
  await nameField.fill("bad name");
  await page.getByRole("button", { name: "Save draft" }).click();
  const cookies = await page.context().cookies();
  const session = await page.evaluate(async () => (await (await fetch("/auth/session")).json()) as { csrf_token: string });
  const api = await request.patch(`/v1/design-api/${shared.apiId}`, {
    headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join("; "), "x-csrf-token": session.csrf_token },
    data: { inputs: [{ name: "bad name", type: "string" }] },
  });
  expect(api.status()).toBe(422);
  const message = ((await api.json()) as { detail: { msg: string }[] }).detail[0]!.msg;
  await expect(page.getByText(message).first()).toBeVisible();

  await nameField.fill("landmark");
  await page.getByLabel("API name").fill(shared.publicTitle);
  await page.getByLabel("Version notes").fill("first draft");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page.getByRole("heading", { level: 1, name: shared.publicTitle })).toBeVisible();

  await page.getByLabel(/^landmark/).fill("Eiffel Tower");
  await page.getByRole("form", { name: "Try it" }).getByRole("button", { name: "Run" }).click();
  await expect(page.getByText(/Done: \d+ tokens/)).toBeVisible();
  await shot(page, info, "endpoint-tried");

  await page.getByRole("button", { name: "Release v1" }).click();
  await expect(page.getByRole("heading", { name: /Version 1 \(read-only\)/ })).toBeVisible();
  await page.getByRole("button", { name: "New draft from v1" }).click();
  await expect(page.getByRole("heading", { name: /^Edit draft v2/ })).toBeVisible();
  await page.getByText("All versions (2)").click();
  await expect(page.getByRole("link", { name: "Version 1" })).toBeVisible();

  // Only a released version is published: the draft is released first, by the page's one release action.
  await page.getByRole("button", { name: "Release v2" }).click();
  await expect(page.getByRole("heading", { name: /Version 2 \(read-only\)/ })).toBeVisible();
  await page.getByText("Publish to the marketplace").click();
  const publish = page.getByRole("form", { name: "Publish to the marketplace" });
  await publish.getByLabel("Title").fill(shared.publicTitle);
  await publish.getByLabel("Description").fill("The completion year and height of a landmark");
  await publish.getByLabel("Category").fill("Travel");
  await publish.getByLabel("Tags").fill("landmarks, e2e");
  await publish.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByText(/published/i).first()).toBeVisible();
  // Published, the version cannot be published again: the form says so rather than offering it.
  await expect(publish.getByRole("button", { name: "Published", exact: true })).toBeDisabled();
  await shot(page, info, "endpoint");
  // Asked anyway (another tab), the server refuses it: the form shows that refusal as an error, not a success.
  await page.reload();
  await page.getByText("Publish to the marketplace").click();
  const again = page.getByRole("form", { name: "Publish to the marketplace" });
  await again.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(again.getByRole("alert")).toContainText(/already published, unchanged, as version 1/);
  await expect(again.locator(".success")).toHaveCount(0);
  await shot(page, info, "endpoint-republish-refused");
});

test("a second owner finds the published endpoint in the marketplace and runs it, and sees none of the first owner's things", async ({
  browser,
  baseURL,
}, info) => {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signUp(page, second);

  await page.getByRole("link", { name: "Marketplace" }).click();
  await page.getByLabel("Search", { exact: true }).fill(unique);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page.getByText(/1 endpoints? match/)).toBeVisible();
  await shot(page, info, "marketplace");
  await page.getByRole("link", { name: shared.publicTitle }).click();
  await expect(page.getByRole("heading", { level: 1, name: shared.publicTitle })).toBeVisible();
  await page.getByLabel(/^landmark/).fill("Eiffel Tower");
  await page.getByRole("form", { name: "Try it" }).getByRole("button", { name: "Run" }).click();
  await expect(page.getByText(/Done: \d+ tokens/)).toBeVisible();
  await shot(page, info, "listing");

  // "Use in my agents" puts the listing among the second owner's MCP tools, and survives a reload.
  const agents = page.getByRole("checkbox", { name: "List it among my MCP tools" });
  await expect(agents).not.toBeChecked();
  // The box follows the server's answer, not the click: click, then wait for it.
  await agents.click();
  await expect(agents).toBeChecked();
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "List it among my MCP tools" })).toBeChecked();
  await page.getByRole("checkbox", { name: "List it among my MCP tools" }).click();
  await expect(page.getByRole("checkbox", { name: "List it among my MCP tools" })).not.toBeChecked();
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "List it among my MCP tools" })).not.toBeChecked();

  // Nothing of the first owner's: keys, endpoints (the draft included), usage.
  await page.goto("/dashboard/keys");
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(page.getByText("e2e key")).toHaveCount(0);
  await page.goto("/dashboard/endpoints");
  await expect(page.getByRole("heading", { name: "Your endpoints" })).toBeVisible();
  await expect(page.getByRole("link", { name: shared.publicTitle })).toHaveCount(0);
  await page.goto(`/dashboard/endpoints/${shared.apiId}`);
  await expect(page.getByText(/not found/i).first()).toBeVisible();
  await page.goto("/dashboard/usage");
  await expect(page.getByRole("heading", { level: 1, name: "Plan and usage" })).toBeVisible();
  // Its own run of the listing shows; its dashboard's own browsing (listing its endpoints) is counted apart, not listed;
  // the first owner's design, edit and runs do not show.
  const recent = page.getByRole("list", { name: "Recent calls" });
  await expect(recent).toBeVisible();
  const showAll = page.getByRole("button", { name: /^Show all \d+ calls$/ });
  if (await showAll.count()) await showAll.click();
  await expect(recent.getByText(/^POST \/v1\/published-service\//).first()).toBeVisible();
  await expect(recent.getByText(/^GET \/v1\/design-api$/)).toHaveCount(0);
  await expect(page.getByText(/Not counted: the dashboard's own \d+ requests/)).toBeVisible();
  await expect(recent.getByText(/^(POST|PATCH) \/v1\/design-api/)).toHaveCount(0);
  await expect(recent.getByText(/user-defined-service/)).toHaveCount(0);
  const direct = await page.evaluate(async (apiId) => {
    const { csrf_token } = (await (await fetch("/auth/session")).json()) as { csrf_token: string };
    return (await fetch(`/v1/design-api/${apiId}`, { headers: { "x-csrf-token": csrf_token } })).status;
  }, shared.apiId!);
  expect(direct).toBe(404);
  await context.close();
});

test("at phone width the pages fit without sideways scrolling", async ({ page }, info) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signIn(page, first);
  for (const path of [
    "/dashboard/usage",
    "/dashboard/keys",
    "/dashboard/playground",
    "/dashboard/endpoints",
    "/dashboard/marketplace",
    "/dashboard/tasks",
    "/dashboard/monitors",
    "/dashboard/webhooks",
  ]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect({ path, overflow }).toEqual({ path, overflow: 0 });
    await shot(page, info, `phone-${path.split("/").pop()}`);
  }
});

test("the first start's one-time link sets the local account's email and password and lands signed in; then it no longer works", async ({
  browser,
  baseURL,
  request,
}, info) => {
  const link = new URL(readFileSync(claimLinkFile(Number(new URL(baseURL!).port)), "utf8").trim());
  const token = link.hash.slice(1);
  const owner = { email: `local-${unique}@example.com`, password: "the local owner's password" };
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto(link.pathname + link.hash);
  await expect(page.getByRole("heading", { level: 1, name: "Set up your sign-in" })).toBeVisible();
  // The token leaves the address bar at once.
  expect(new URL(page.url()).hash).toBe("");
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Save and sign in" }).click();
  await expect(page.getByText("String should have at least 10 characters").first()).toBeVisible();
  await shot(page, info, "claim-error");
  // That mistake did not spend the link.
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Save and sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Plan and usage" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await shot(page, info, "claimed");

  const again = await request.post("/auth/claim", { data: { token, email: `thief-${unique}@example.com`, password: "another password" } });
  expect(again.status()).toBe(401);
  const accountId = await page.evaluate(
    async () => ((await (await fetch("/auth/session")).json()) as { account: { id: string } }).account.id,
  );
  await context.close();

  // Opened again, the used link says what to do in words, with the operator's command for this very account.
  const later = await browser.newContext({ baseURL });
  const usedPage = await later.newPage();
  await usedPage.goto(link.pathname + link.hash);
  await usedPage.getByLabel("Email").fill(`again-${unique}@example.com`);
  await usedPage.getByLabel("Password").fill("yet another password");
  await usedPage.getByRole("button", { name: "Save and sign in" }).click();
  const refusal = usedPage.getByRole("alert").filter({ hasText: "no longer works" });
  await expect(refusal).toBeVisible();
  await expect(refusal.getByRole("link", { name: "sign in" })).toHaveAttribute("href", "/dashboard/signin");
  await expect(refusal.locator("code")).toHaveText(`npm run cli -- accounts sign-in-link --account ${accountId}`);
  expect(await refusal.textContent()).not.toMatch(/`|--account ID\b/);
  await shot(usedPage, info, "claim-used");
  await usedPage.setViewportSize({ width: 390, height: 844 });
  await shot(usedPage, info, "claim-used-390");
  await later.close();
  await signIn(await browser.newPage({ baseURL }), owner);
});
