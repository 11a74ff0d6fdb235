/**
 * A first minute that leads somewhere (issue 29, item 3): a fresh account
 * sees "Get started" on its usage page, whose steps tick off as it makes a
 * key and a real call with it, and which stays gone once dismissed; the
 * header's Docs link reaches the API reference the service serves; the
 * playground's "Set CRITIQUE_API_KEY" hint links to the keys page.
 */
import { existsSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { expectAccessible, postAsDashboard, shot, signUp, WIDTHS } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);

const card = (page: Page) => page.getByRole("region", { name: "Get started" });
const step = (page: Page, title: string) => card(page).getByRole("heading", { name: new RegExp(`^${title}`) });

test("a fresh account is led from a key to its first call, each step ticked off, and the card stays gone once dismissed", async ({
  page,
}, info) => {
  await signUp(page, "Newcomer");
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.goto("/dashboard/usage");
    await expect(card(page)).toContainText("0 of 4 steps done.");
    await expect(step(page, "Create an API key")).toHaveText("Create an API key To do");
    await page.waitForLoadState("networkidle");
    await shot(page, info, `usage-get-started-${width}`);
    await expectAccessible(page, `the get-started card at ${width}`);
  }

  // Step 1 leads to the keys page; a key made there ticks it off.
  await card(page).getByRole("link", { name: "Create a key", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  const key = String((await postAsDashboard(page, "/v1/keys", { name: "first" })).api_key);
  expect(key).toMatch(/^sk_/);
  // Research from the playground is usage, but not the first minute's call: that is made with the key.
  await postAsDashboard(page, "/v1/search", { prompt: "How tall is the Eiffel Tower?" });
  await page.goto("/dashboard/usage");
  await expect(step(page, "Create an API key")).toHaveText("Create an API key Done");
  await expect(card(page)).toContainText("1 of 4 steps done.");
  await expect(step(page, "See it in your usage")).toHaveText("See it in your usage To do");
  // Step 2: the curl line calls this very server, with the key from the environment, never on the page.
  const curl = card(page).getByLabel("A first call with curl");
  await expect(curl).toContainText(`curl -sS -X POST '${new URL(page.url()).origin}/v1/search'`);
  await expect(curl).toContainText('-H "X-API-Key: $CRITIQUE_API_KEY"');
  await shot(page, info, "usage-get-started-key-phone");
  await expectAccessible(page, "the get-started card with a key");

  // Steps 3 and 4: a real call with the key (the loopback search world answers), seen when the reader comes back.
  const call = await page.context().request.post("/v1/search", {
    headers: { "X-API-Key": key },
    data: { prompt: "When was the Eiffel Tower completed?" },
  });
  expect(call.status(), await call.text()).toBe(200);
  await expect(async () => {
    await page.reload();
    await expect(card(page)).toContainText("All done: your first call is counted on this page.", { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  for (const title of ["Create an API key", "Copy a first call", "Run it in a terminal", "See it in your usage"]) {
    await expect(step(page, title)).toHaveText(`${title} Done`);
  }
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await shot(page, info, `usage-get-started-done-${width}`);
    await expectAccessible(page, `the get-started card, all done, at ${width}`);
  }

  await card(page).getByRole("button", { name: "Dismiss" }).click();
  await expect(card(page)).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Plan and usage" })).toBeVisible();
  await page.waitForLoadState("networkidle");
  await expect(card(page)).toHaveCount(0);
  await shot(page, info, "usage-get-started-dismissed-phone");
});

test("an account that has made calls before is not shown the card", async ({ page }) => {
  await signUp(page, "Veteran");
  const key = String((await postAsDashboard(page, "/v1/keys", { name: "old hand" })).api_key);
  const call = await page.context().request.post("/v1/search", { headers: { "X-API-Key": key }, data: { prompt: "Eiffel Tower height" } });
  expect(call.status()).toBe(200);
  await expect
    .poll(async () => {
      const usage = await page.context().request.get("/v1/usage?days=365", { headers: { "X-API-Key": key } });
      return ((await usage.json()) as { totals: { calls: number } }).totals.calls;
    })
    .toBeGreaterThan(0);
  // This browser has never shown the card (nothing remembers it): the account's calls decide.
  await page.evaluate(() => localStorage.clear());
  await page.goto("/dashboard/usage");
  await page.waitForLoadState("networkidle");
  await expect(page.getByRole("heading", { level: 1, name: "Plan and usage" })).toBeVisible();
  await expect(card(page)).toHaveCount(0);
});

test("the header's Docs link leads to the API reference the service serves", async ({ page }, info) => {
  await signUp(page, "Reader");
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.goto("/dashboard/usage");
    if (width === "phone") await page.getByRole("button", { name: "Menu" }).click();
    const docs = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Docs/ });
    await expect(docs).toHaveAccessibleName("Docs (API reference, leaves the dashboard)");
    await shot(page, info, `header-docs-${width}`);
    await expectAccessible(page, `the header with its Docs link at ${width}`);
    const [response] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === "/docs"), docs.click()]);
    expect(response.status()).toBe(200);
    await expect(page).toHaveURL(/\/docs$/);
    await expect(page.getByRole("heading").first()).toBeVisible();
    await shot(page, info, `docs-${width}`);
  }
  expect((await page.request.get("/openapi.json")).status()).toBe(200);
});

test("the playground's CRITIQUE_API_KEY hint and the integration samples link to the keys page", async ({ page }, info) => {
  await signUp(page, "Player");
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.goto("/dashboard/playground");
    const hint = page.getByText(/^Set CRITIQUE_API_KEY to one of your keys first\.$/);
    await expect(hint).toBeVisible();
    await shot(page, info, `playground-key-hint-${width}`);
    await expectAccessible(page, `the playground at ${width}`);
    await hint.getByRole("link", { name: "your keys" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard\/keys$/);
  }
  // The endpoint page's samples say the same, with the same link.
  const created = (await postAsDashboard(page, "/v1/design-api", { original_prompt: "Facts about a landmark: its height in metres." }))
    .response as { id: number };
  await page.goto(`/dashboard/endpoints/${created.id}`);
  await page.getByText("Integration: URL and code samples").click();
  await page
    .getByText(/^The samples read your key from CRITIQUE_API_KEY/)
    .getByRole("link", { name: "your keys" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
});
