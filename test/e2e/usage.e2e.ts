/**
 * Usage you can read (issue 29, item 1): real calls with a key made in the
 * dashboard (one refused with a 4xx, one running a designed endpoint, one
 * its marketplace listing, one from a second key), then the usage page: the charts' summaries (calls and
 * errors, tokens, cost, latency), filters by key and route that narrow the
 * counts and live in the URL (a reload keeps them, Back undoes them), money
 * in one format, recent calls with their request id and a link to the
 * endpoint they ran; at 390 px, 90 days and 20 recent calls in at most about
 * three screens.
 */
import { existsSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { landmarkEndpoint } from "../helpers/landmark-endpoint.ts";
import { expectAccessible, postAsDashboard, screens, shot, signUp, WIDTHS } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);

/** Calls the API over HTTP as a program would: with the key, no session. */
function caller(page: Page, apiKey: string) {
  return (path: string, body?: unknown, requestId?: string) => {
    const headers = { "X-API-Key": apiKey, ...(requestId ? { "X-Request-Id": requestId } : {}) };
    return body === undefined ? page.request.get(path, { headers }) : page.request.post(path, { headers, data: body });
  };
}

const summary = (page: Page) => page.locator(".chart-summary");
const chart = (page: Page, name: string) => page.getByRole("group", { name: "Chart" }).getByRole("button", { name });
const recent = (page: Page) => page.getByRole("list", { name: "Recent calls" });

test("usage: charts, filters in the URL, one money format, recent calls with their ids and links, at both widths", async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await signUp(page, "Meter");
  // Pro, so calls cost money (and 100 calls a minute).
  await postAsDashboard(page, "/dashboard/api/credit", { amount: 5 });

  await page.goto("/dashboard/keys");
  await page.getByLabel("Key name").fill("meter key");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = await page.getByLabel("New API key").inputValue();
  await page.getByRole("button", { name: "I have stored the key" }).click();
  const quiet = (await postAsDashboard(page, "/v1/keys", { name: "quiet key" })) as { id: string; api_key: string };
  const endpoint = ((await postAsDashboard(page, "/v1/design-api", landmarkEndpoint)) as { response: { id: number; stub: string } })
    .response;

  const call = caller(page, secret);
  const listing = (await postAsDashboard(page, `/v1/design-api/${endpoint.id}/publish`, {
    public_stub: `meter-${Date.now().toString(36)}`,
  })) as {
    public_stub: string;
  };

  for (let i = 0; i < 17; i++) expect((await call("/v1/keys")).status()).toBe(200);
  expect((await call("/v1/search", { prompt: "river bridge cost" }, "req_e2e_usage_search")).status()).toBe(200);
  expect((await call("/v1/search", { prompt: 42 }, "req_e2e_usage_refused")).status()).toBe(422);
  expect((await call(`/v1/user-defined-service/${endpoint.stub}`, { landmark: "Eiffel Tower" }, "req_e2e_usage_run")).status()).toBe(200);
  expect((await call(`/v1/published-service/${listing.public_stub}`, { landmark: "Eiffel Tower" }, "req_e2e_usage_listing")).status()).toBe(
    200,
  );
  expect((await caller(page, quiet.api_key)("/v1/search", { prompt: "river bridge cost" }, "req_e2e_usage_quiet")).status()).toBe(200);

  // Desktop: the charts, one at a time, each with its sentence.
  await page.goto("/dashboard/usage");
  await expect(page.getByRole("img", { name: "Calls and errors per day" })).toBeVisible();
  await expect(summary(page)).toHaveText(
    /^22 calls from .+, 1 client error \(4xx\) and 0 server errors \(5xx\); the highest day was .+ with 22 calls\.$/,
  );
  await expect(page.getByRole("heading", { level: 3, name: "Calls and errors per day" })).toBeVisible();
  await expectAccessible(page, "usage, calls chart, desktop");
  await shot(page, info, "usage-calls-desktop");

  await chart(page, "Tokens").click();
  await expect(page).toHaveURL(/chart=tokens/);
  await expect(page.getByRole("img", { name: "Tokens per day" })).toBeVisible();
  await expect(summary(page)).toHaveText(/^[\d,]+ tokens from .+; the highest day was .+ tokens\.$/);

  // One money format: the cost total and the cost chart's sentence read the same amount, never $0.00 for a paid call.
  await chart(page, "Cost").click();
  await expect(page.getByRole("img", { name: "Cost per day" })).toBeVisible();
  const cost = (await page.locator(".totals div", { hasText: "Cost" }).locator("dd").textContent())!.trim();
  expect(cost).toMatch(/^\$(0\.\d{2,6}|[1-9][\d,]*\.\d{2})$/);
  expect(cost).not.toBe("$0.00");
  await expect(summary(page)).toHaveText(new RegExp(`^\\${cost} from `));

  await chart(page, "Latency").click();
  await expect(page.getByRole("img", { name: "Latency per day" })).toBeVisible();
  await expect(summary(page)).toHaveText(
    /^Latency recorded on 1 day from .+; the slowest day was .+, median [\d.,]+ m?s and 95th percentile [\d.,]+ m?s\.$/,
  );
  await expect(chart(page, "Latency")).toHaveAttribute("aria-pressed", "true");
  await shot(page, info, "usage-latency-desktop");

  // The numbers as a table, behind a closed disclosure.
  await page.getByText("Show the numbers as a table").click();
  const table = page.getByRole("table", { name: /Usage per day/ });
  await expect(table.getByRole("row").nth(1)).toContainText("22");
  await expectAccessible(page, "usage, latency chart and table, desktop");

  // Filters: by key (narrows every count), kept in the URL, undone by Back.
  await chart(page, "Calls").click();
  await page.getByLabel("Key").selectOption({ label: "quiet key" });
  await expect(page).toHaveURL(new RegExp(`key=${quiet.id}`));
  await expect(summary(page)).toHaveText(/^1 call from .+, 0 client errors \(4xx\)/);
  await expect(recent(page).getByRole("listitem")).toHaveCount(1);
  await expect(recent(page)).toContainText("quiet key");
  await page.goBack();
  await expect(page).not.toHaveURL(/key=/);
  await expect(summary(page)).toHaveText(/^22 calls from /);

  // By route, then by key as well: the URL keeps both, and a reload (a shared link) opens the same view.
  await page.getByLabel("Route or endpoint").selectOption("POST /v1/search");
  await expect(summary(page)).toHaveText(/^3 calls from .+, 1 client error \(4xx\)/);
  await page.getByLabel("Key").selectOption({ label: "meter key" });
  await expect(summary(page)).toHaveText(/^2 calls from .+, 1 client error \(4xx\)/);
  expect(new URL(page.url()).searchParams.get("route")).toBe("POST /v1/search");
  await page.reload();
  await expect(summary(page)).toHaveText(/^2 calls from /);
  await expect(page.getByLabel("Route or endpoint")).toHaveValue("POST /v1/search");
  await expect(recent(page).getByRole("listitem")).toHaveCount(2);
  await shot(page, info, "usage-filtered-desktop");
  await expectAccessible(page, "usage, filtered, desktop");
  await page.getByRole("link", { name: "Clear filters" }).click();
  await expect(summary(page)).toHaveText(/^22 calls from /);

  // By endpoint: each version of the account's endpoints is offered by its name.
  await page.getByLabel("Route or endpoint").selectOption({ label: "Landmark facts v1 (live)" });
  await expect(page).toHaveURL(new RegExp(`api_id=${endpoint.id}`));
  await expect(recent(page).getByRole("listitem").filter({ hasText: "req_e2e_usage_run" })).toHaveCount(1);
  await expect(recent(page).getByRole("listitem").filter({ hasText: "req_e2e_usage_search" })).toHaveCount(0);
  await page.getByRole("link", { name: "Clear filters" }).click();
  await expect(summary(page)).toHaveText(/^22 calls from /);

  // Recent calls: the latest five, the rest behind Show all; each with its request id, key, latency and what it ran.
  await expect(recent(page).getByRole("listitem")).toHaveCount(5);
  const quietCall = recent(page).getByRole("listitem").filter({ hasText: "req_e2e_usage_quiet" });
  await expect(quietCall).toContainText("POST /v1/search");
  await expect(quietCall).toContainText(/\d+ m?s/);
  await expect(quietCall.getByRole("button", { name: "Copy id" })).toBeVisible();
  const run = recent(page).getByRole("listitem").filter({ hasText: "req_e2e_usage_run" });
  await expect(run).toContainText("meter key");
  await expect(recent(page).getByRole("listitem").filter({ hasText: "req_e2e_usage_refused" })).toContainText("422");
  await page.getByRole("button", { name: "Show all 20 calls" }).click();
  await expect(recent(page).getByRole("listitem")).toHaveCount(20);
  await page.getByRole("button", { name: "Show the first 5" }).click();

  await run.getByRole("link", { name: "Landmark facts v1 (live)" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/endpoints/${endpoint.id}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Landmark facts" })).toBeVisible();
  await page.goBack();
  await expect(page.getByRole("img", { name: "Calls and errors per day" })).toBeVisible();
  const listed = recent(page).getByRole("listitem").filter({ hasText: "req_e2e_usage_listing" });
  await listed.getByRole("link", { name: `Listing ${listing.public_stub}` }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/marketplace/${listing.public_stub}$`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.goBack();
  await expect(page.getByRole("img", { name: "Calls and errors per day" })).toBeVisible();

  // Phone: 90 days and 20 recent calls in about three screens at most, nothing sideways.
  await page.setViewportSize(WIDTHS.phone);
  await page.goto("/dashboard/usage?days=90");
  await expect(page.getByLabel("Period")).toHaveValue("90");
  await expect(summary(page)).toHaveText(/^22 calls from /);
  await page.waitForLoadState("networkidle");
  expect(await screens(page)).toBeLessThanOrEqual(3.5);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await shot(page, info, "usage-90-days-phone");
  await expectAccessible(page, "usage, 90 days, phone");

  await chart(page, "Cost").click();
  await expect(summary(page)).toHaveText(new RegExp(`^\\${cost} from `));
  await page.getByLabel("Key").selectOption({ label: "meter key" });
  await expect(summary(page)).toHaveText(/from /);
  await shot(page, info, "usage-filtered-phone");
  await expectAccessible(page, "usage, filtered, phone");
});
