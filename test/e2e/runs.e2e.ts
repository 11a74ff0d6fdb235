/**
 * Runs you can inspect (issue 29, item 2): beside an answer, how its run went
 * (time, tokens, cost, queries, providers), its cited sources first and the
 * ones read but not cited set apart after them; the same panel for an
 * endpoint's try-it and the marketplace's; and a 429 that names the limit
 * and counts down to when to try again. At 1280 and 390 px, each state
 * checked with axe-core.
 */
import { existsSync } from "node:fs";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { expectAccessible, postAsDashboard, shot, signUp, WIDTHS } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);

const unique = Date.now().toString(36);
/** Three pages answer it in the loopback world (test/helpers/search-world.ts); the rumour page is read but not cited. */
const BRIDGE = "How much will the river bridge cost?";
const SUMMARY = /^(\d+ ms|\d+\.\d s|\d+ min \d+ s) · [\d,]+ tokens? · \$\d+\.\d+ · \d+ providers?$/;

/** Opens the run details under `scope` and checks what they tell: time, tokens, cost, queries and each provider's fate. */
async function expectRunDetails(scope: Locator) {
  const details = scope.locator("details.run-details");
  await expect(details).toHaveCount(1);
  // Collapsed, one line sums the run up; the cost is the run's usage record's, looked up by its request id.
  await expect(details).not.toHaveAttribute("open", "");
  await expect(details.locator(".run-summary")).toHaveText(SUMMARY);
  await details.locator("summary").click();
  await expect(details).toHaveAttribute("open", "");
  const fact = (term: string | RegExp) =>
    details.locator(".run-facts > div").filter({ has: details.page().getByRole("term").getByText(term) });
  await expect(fact("Time").getByRole("definition")).toHaveText(/^(\d+ ms|\d+\.\d s)/);
  await expect(fact("Tokens").getByRole("definition")).toHaveText(/^[\d,]+ \([\d,]+ prompt, [\d,]+ completion\)$/);
  await expect(fact("Cost").getByRole("definition")).toHaveText(/^\$\d+\.\d+$/);
  await expect(
    fact(/^Quer(y|ies)/)
      .getByRole("listitem")
      .first(),
  ).not.toBeEmpty();
  const providers = details.getByRole("table", { name: "Search providers" });
  await expect(providers.getByRole("row")).not.toHaveCount(1);
  await expect(providers.getByRole("cell").first()).toHaveText(/^(OK|Partly|Failed|Skipped|Not used): /);
  await expect(providers).toContainText("calls answered");
}

/** Every cited source sits before every uncited one, and the uncited ones are under their own label. */
async function expectCitedThenUncited(page: Page, answer: Locator) {
  const cited = page.getByRole("list", { name: "Cited sources" });
  const uncited = page.getByRole("list", { name: "Read but not cited" });
  await expect(cited.getByRole("listitem").first()).toBeVisible();
  await expect(uncited.getByRole("listitem").first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Read but not cited" })).toBeVisible();
  const text = (await answer.textContent()) ?? "";
  const citedIds = await cited.locator(":scope > li").evaluateAll((items) => items.map((li) => Number(li.getAttribute("value"))));
  const uncitedIds = await uncited.locator(":scope > li").evaluateAll((items) => items.map((li) => Number(li.getAttribute("value"))));
  // The cited ones are the ones the answer's markers name; the rest were read and left uncited.
  for (const id of citedIds) expect(text).toMatch(new RegExp(`\\[[\\d, ]*\\b${id}\\b[\\d, ]*\\]`));
  for (const id of uncitedIds) expect(text).not.toMatch(new RegExp(`\\[[\\d, ]*\\b${id}\\b[\\d, ]*\\]`));
  const after = await uncited.evaluate(
    (list, citedList) => Boolean(citedList && citedList.compareDocumentPosition(list) & Node.DOCUMENT_POSITION_FOLLOWING),
    await cited.elementHandle(),
  );
  expect(after, "the uncited sources come after the cited ones").toBe(true);
  expect((await cited.boundingBox())!.y).toBeLessThan((await uncited.boundingBox())!.y);
}

/** POST /v1/design-api answers the new endpoint under `response`. */
const apiIdOf = (designed: Record<string, unknown>) => String((designed.response as { id: number }).id);

async function expectNoSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

async function playgroundSearch(page: Page, prompt: string) {
  await page.goto("/dashboard/playground");
  await page.getByLabel("Prompt").fill(prompt);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page.getByText(/^Search finished with \d+ sources?\.$/)).toBeVisible();
}

test("a playground search shows how its run went, and its cited sources before the ones read but not cited", async ({ page }, info) => {
  await page.setViewportSize(WIDTHS.desktop);
  await signUp(page, "Inspector");
  await playgroundSearch(page, BRIDGE);
  const answer = page.getByRole("region", { name: "Answer" });
  await expect(answer).toContainText("42 million");
  await expectCitedThenUncited(page, answer);
  await expectAccessible(page, "the playground with a finished run, details collapsed");
  await shot(page, info, "runs-playground-collapsed-desktop");
  await expectRunDetails(page.locator(".results"));
  await expectAccessible(page, "the playground with the run details open");
  await shot(page, info, "runs-playground-details-desktop");

  await page.setViewportSize(WIDTHS.phone);
  await playgroundSearch(page, BRIDGE);
  await expectCitedThenUncited(page, page.getByRole("region", { name: "Answer" }));
  await expectNoSidewaysScroll(page);
  await shot(page, info, "runs-playground-collapsed-phone");
  await expectRunDetails(page.locator(".results"));
  await expectNoSidewaysScroll(page);
  await expectAccessible(page, "the playground on a phone, run details open");
  await shot(page, info, "runs-playground-details-phone");
});

test("an endpoint's try-it and the marketplace's try-it show the same run details", async ({ page }, info) => {
  await page.setViewportSize(WIDTHS.desktop);
  await signUp(page, "Publisher");
  const designed = await postAsDashboard(page, "/v1/design-api", {
    original_prompt: "Given a landmark, find the year it was completed and its height in metres",
  });
  const published = await postAsDashboard(page, `/v1/design-api/${apiIdOf(designed)}/publish`, {
    title: `Landmark facts ${unique}`,
    description: "The completion year and height of a landmark",
  });

  for (const [where, path, width] of [
    ["endpoint", `/dashboard/endpoints/${apiIdOf(designed)}`, "desktop"],
    ["listing", `/dashboard/marketplace/${String(published.public_stub)}`, "desktop"],
    ["endpoint", `/dashboard/endpoints/${apiIdOf(designed)}`, "phone"],
    ["listing", `/dashboard/marketplace/${String(published.public_stub)}`, "phone"],
  ] as const) {
    await page.setViewportSize(WIDTHS[width]);
    await page.goto(path);
    const form = page.getByRole("form", { name: "Try it" });
    await form.getByRole("textbox").first().fill("Eiffel Tower");
    await form.getByRole("button", { name: "Run", exact: true }).click();
    await expect(form.getByText(/^Done: \d+ tokens\.$/)).toBeVisible();
    const run = form.locator("xpath=..");
    await expectRunDetails(run);
    await expect(run.getByRole("heading", { name: "Sources" })).toBeVisible();
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, `the ${where} page's try-it with its run details open (${width})`);
    await run.locator("details.run-details").scrollIntoViewIfNeeded();
    await shot(page, info, `runs-${where}-try-it-${width}`);
  }
});

test("a 429 names the plan's limit and counts down to when to try again, on the playground and a try-it", async ({ page }, info) => {
  await page.setViewportSize(WIDTHS.desktop);
  await signUp(page, "Limited");
  const designed = await postAsDashboard(page, "/v1/design-api", {
    original_prompt: "Given a landmark, find the year it was completed and its height in metres",
  });
  // Spend the Free minute's ten research calls: empty bodies are refused with 422 after the call is counted.
  const session = (await (await page.request.get("/auth/session")).json()) as { csrf_token: string };
  let status = 0;
  for (let i = 0; i < 15 && status !== 429; i++)
    status = (await page.request.post("/v1/search", { data: {}, headers: { "X-CSRF-Token": session.csrf_token } })).status();
  expect(status).toBe(429);

  await page.goto("/dashboard/playground");
  await page.getByLabel("Prompt").fill("When was the Eiffel Tower completed?");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Rate limit reached" });
  await expect(alert).toHaveText(/^Rate limit reached: your Free plan allows 10 calls a minute\. Try again in \d+ s\.$/);
  const failed = page.getByText("The search failed.");
  await expect(failed).toBeVisible();
  expect(await failed.evaluate((el) => el.classList.contains("failure"))).toBe(true);
  // The Run button says when it is usable again, and is not usable before.
  const waiting = page.getByRole("button", { name: /^Run \(in \d+ s\)$/ });
  await expect(waiting).toBeDisabled();
  const first = Number(/in (\d+) s/.exec((await alert.textContent())!)![1]);
  expect(first).toBeGreaterThan(0);
  await expectAccessible(page, "the playground refused by the rate limit");
  await shot(page, info, "runs-rate-limited-playground-desktop");
  // The wait counts down, then the button is usable again.
  await expect(alert).toContainText("You can try again now.", { timeout: (first + 3) * 1000 });
  await expect(page.getByRole("button", { name: "Run", exact: true })).toBeEnabled();

  // Spent again, the endpoint's try-it (plain HTTP) says the same.
  status = 0;
  for (let i = 0; i < 15 && status !== 429; i++)
    status = (await page.request.post("/v1/search", { data: {}, headers: { "X-CSRF-Token": session.csrf_token } })).status();
  expect(status).toBe(429);
  await page.setViewportSize(WIDTHS.phone);
  await page.goto(`/dashboard/endpoints/${apiIdOf(designed)}`);
  const form = page.getByRole("form", { name: "Try it" });
  await form.getByRole("textbox").first().fill("Eiffel Tower");
  await form.getByRole("button", { name: "Run", exact: true }).click();
  const tryAlert = form.getByRole("alert");
  await expect(tryAlert).toHaveText(/^Rate limit reached: your Free plan allows 10 calls a minute\. Try again in \d+ s\.$/);
  await expect(form.getByRole("button", { name: /^Run \(in \d+ s\)$/ })).toBeDisabled();
  await expectNoSidewaysScroll(page);
  await expectAccessible(page, "an endpoint's try-it refused by the rate limit (phone)");
  await form.scrollIntoViewIfNeeded();
  await shot(page, info, "runs-rate-limited-try-it-phone");
});
