/**
 * The endpoint page explains itself (issue 29, item 4): what Draft and Live
 * mean and which version the unversioned URL runs, said where the version is
 * shown; one release action; a released version read-only; "try it" beside
 * the editor on a laptop and under it on a phone; no more than about three
 * phone screens with three versions and four inputs; and the price per call
 * on the marketplace's listings.
 */
import { existsSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { expectAccessible, postAsDashboard, screens, shot, signUp, WIDTHS } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);

const FOUR_INPUTS = {
  original_prompt: "Given a landmark, find the year it was completed, its height in metres and its designer",
  api_name: "Landmark facts",
  inputs: [
    { name: "landmark", type: "string", description: "The landmark's name" },
    { name: "city", type: "string", required: false, default: "Paris", description: "Where it stands" },
    { name: "language", type: "string", required: false, default: null, description: "The answer's language" },
    { name: "max_sources", type: "number", required: false, default: 5, description: "How many pages to read" },
  ],
  output_format: { completed_year: "integer", height_metres: "number", designer: "string" },
};

type Record = { id: number; version: number };

/** An endpoint of four inputs with v1 and v2 released and v3 a draft, made through the dashboard's own API. */
async function threeVersions(page: Page): Promise<{ v1: Record; v2: Record; v3: Record }> {
  const v1 = (await postAsDashboard(page, "/v1/design-api", FOUR_INPUTS)).response as Record;
  await postAsDashboard(page, `/v1/design-api/${v1.id}/release`, null);
  const v2 = (await postAsDashboard(page, `/v1/design-api/${v1.id}/versions`, { version_notes: "second" })).response as Record;
  await postAsDashboard(page, `/v1/design-api/${v2.id}/release`, null);
  const v3 = (await postAsDashboard(page, `/v1/design-api/${v2.id}/versions`, { version_notes: "third" })).response as Record;
  return { v1, v2, v3 };
}

const stateCard = (page: Page) => page.getByRole("region", { name: /^Version \d+ (Draft|Released)/ });

test("a draft says what Draft and Live mean, has one release action, and releasing it makes it read-only and live", async ({
  page,
}, info) => {
  await signUp(page, "Drafter");
  const { v2, v3 } = await threeVersions(page);
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.goto(`/dashboard/endpoints/${v3.id}`);
    const state = stateCard(page);
    await expect(state).toContainText("Draft: you can edit it; it runs only at its own URL, …/v3.");
    await expect(state).toContainText("Live is v2: the unversioned URL runs it until you release this draft.");
    await expect(state.getByRole("link", { name: "v2" })).toHaveAttribute("href", `/dashboard/endpoints/${v2.id}`);
    // One release action on the page, and no other button that releases or makes versions.
    await expect(page.getByRole("button", { name: /release/i })).toHaveCount(1);
    await expect(page.getByRole("button", { name: /new (draft|version)|revert/i })).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Edit draft v3" })).toBeVisible();
    await page.waitForLoadState("networkidle");
    await shot(page, info, `endpoint-draft-${width}`);
    await expectAccessible(page, `the draft at ${width}`);
  }

  await page.getByRole("button", { name: "Release v3" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Version 3 released; it is live now." })).toBeVisible();
  const state = stateCard(page);
  await expect(state).toContainText("Released: it never changes. Live: the unversioned URL runs it, the newest released version.");
  await expect(state.getByRole("heading", { name: "Version 3 Released Live" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Version 3 (read-only)" })).toBeVisible();
  await expect(page.getByText("Released versions cannot change; make a new draft to edit.")).toBeVisible();
  // Shown as text: no field of the definition can be typed into.
  await expect(page.getByRole("textbox", { name: "API name" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Save draft" })).toHaveCount(0);
  await expect(page.getByRole("cell", { name: "max_sources" })).toBeVisible();
  await shot(page, info, "endpoint-released-phone");
  await expectAccessible(page, "the released version on a phone");

  // Its usage is one link away: the usage page filtered to this version.
  await state.getByRole("link", { name: "Usage of v3" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/usage\\?api_id=${v3.id}$`));
  await expect(page.getByLabel("Route or endpoint")).toHaveValue(`api:${v3.id}`);
});

test("a released version is read-only and makes a new draft; an older one says which version is live", async ({ page }, info) => {
  await signUp(page, "Reviser");
  const { v1, v2, v3 } = await threeVersions(page);
  await postAsDashboard(page, `/v1/design-api/${v3.id}/release`, null);
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.goto(`/dashboard/endpoints/${v1.id}`);
    const state = stateCard(page);
    await expect(state).toContainText("Released: it never changes, and stays callable at …/v1. Live is v3");
    await expect(page.getByRole("heading", { name: "Version 1 (read-only)" })).toBeVisible();
    await expect(page.getByText("Released versions cannot change; make a new draft to edit.")).toBeVisible();
    await expect(page.getByRole("button", { name: /release/i })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /new draft/i })).toHaveCount(1);
    // The lineage is folded: all versions behind one disclosure.
    await expect(page.getByRole("link", { name: "Version 2" })).toBeHidden();
    await page.getByText("All versions (3)").click();
    await expect(page.getByRole("link", { name: "Version 2" })).toHaveAttribute("href", `/dashboard/endpoints/${v2.id}`);
    await page.waitForLoadState("networkidle");
    await shot(page, info, `endpoint-older-released-${width}`);
    await expectAccessible(page, `an older released version at ${width}`);
  }

  await page.getByRole("button", { name: "New draft from v1" }).click();
  await expect(page.getByRole("heading", { name: "Edit draft v4" })).toBeVisible();
  await expect(stateCard(page)).toContainText("Live is v3");
  await expect(page.getByRole("textbox", { name: "API name" })).toBeEditable();
  // Back on v1, the action is the way to the one draft, not a second one.
  await page.goto(`/dashboard/endpoints/${v1.id}`);
  await expect(page.getByRole("link", { name: "Edit draft v4" })).toBeVisible();
  await expect(page.getByRole("button", { name: /new draft/i })).toHaveCount(0);
  await shot(page, info, "endpoint-new-draft-phone");
});

test("try it sits beside the editor on a laptop and under it on a phone, and a phone scrolls about three screens", async ({
  page,
}, info) => {
  await signUp(page, "Layout");
  const { v2, v3 } = await threeVersions(page);
  await page.setViewportSize(WIDTHS.desktop);
  await page.goto(`/dashboard/endpoints/${v3.id}`);
  const editor = page.getByRole("form", { name: "Edit draft v3" });
  const tryIt = page.getByRole("region", { name: "Try it" });
  await expect(editor).toBeVisible();
  await expect(tryIt).toBeVisible();
  let [left, right] = [(await editor.boundingBox())!, (await tryIt.boundingBox())!];
  expect(right.x, "try it to the right of the editor").toBeGreaterThanOrEqual(left.x + left.width);
  expect(Math.abs(right.y - left.y), "their tops level").toBeLessThan(5);
  await page.waitForLoadState("networkidle");
  await shot(page, info, "endpoint-beside-desktop");

  await page.setViewportSize(WIDTHS.phone);
  await page.goto(`/dashboard/endpoints/${v3.id}`);
  await expect(editor).toBeVisible();
  [left, right] = [(await editor.boundingBox())!, (await tryIt.boundingBox())!];
  expect(right.y, "try it under the editor").toBeGreaterThanOrEqual(left.y + left.height);
  expect(Math.abs(right.x - left.x)).toBeLessThan(5);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.waitForLoadState("networkidle");
  const count = await screens(page);
  console.log(`endpoint page, draft v3 of 3 with 4 inputs, on a phone: ${count.toFixed(2)} screens`);
  await shot(page, info, "endpoint-stacked-phone");
  expect(count).toBeLessThanOrEqual(3.5);
  await expectAccessible(page, "the draft on a phone");

  await page.goto(`/dashboard/endpoints/${v2.id}`);
  await expect(page.getByRole("heading", { name: /\(read-only\)$/ })).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(await screens(page)).toBeLessThanOrEqual(3.5);
});

test("a listing shows its price per call, in the marketplace and on its page", async ({ page }, info) => {
  await signUp(page, "Seller");
  const { v2 } = await threeVersions(page);
  const stub = `priced-${Date.now().toString(36)}`;
  await postAsDashboard(page, `/v1/design-api/${v2.id}/publish`, { public_stub: stub, title: `Priced landmarks ${stub}` });
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.goto(`/dashboard/marketplace?q=${stub}`);
    const card = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: `Priced landmarks ${stub}` }) });
    await expect(card).toContainText(/Price: \$2\.00 per million tokens, counted on each call; no calls yet/);
    await shot(page, info, `marketplace-price-${width}`);
    await expectAccessible(page, `the marketplace with prices at ${width}`);
  }
  // A real run of it (the loopback world answers): its listing then says what a call cost on average.
  const run = await page.request.post(`/v1/published-service/${stub}`, {
    data: { landmark: "Eiffel Tower" },
    headers: { "X-CSRF-Token": ((await (await page.request.get("/auth/session")).json()) as { csrf_token: string }).csrf_token },
  });
  expect(run.status(), await run.text()).toBe(200);
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.goto(`/dashboard/marketplace/${stub}`);
    await expect(
      page.getByText(/Price: about \$[\d.,]+ per call \(average of the last call: [\d,]+ tokens\) · \$2\.00 per million tokens/),
    ).toBeVisible();
    await page.waitForLoadState("networkidle");
    await shot(page, info, `listing-price-${width}`);
    await expectAccessible(page, `a listing with its price at ${width}`);
  }
});
