/**
 * Every page of the dashboard, at a laptop's width and a phone's (issue 29):
 * no serious or critical accessibility violation (axe-core, WCAG 2.1 A/AA),
 * a phone's reader scrolls no more than about three screens for a page's main
 * task, and a screenshot of each page at each width is saved
 * (test-results/screens/<page>-<width>.png).
 */
import { existsSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { expectAccessible, postAsDashboard, screens, shot, signUp, WIDTHS } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);
test.describe.configure({ mode: "serial" });

/** Things the pages show, made once through the dashboard's own API with the signed-in session. */
const made: { apiId?: number; stub?: string; taskId?: string; monitorId?: string; deliveryId?: string } = {};

/** Screens a phone reader may scroll on a page: "about three", with a little room for a long name. */
const PHONE_SCREENS = 3.5;

const PAGES: { name: string; path: () => string; heading: RegExp | string }[] = [
  { name: "usage", path: () => "/dashboard/usage", heading: "Plan and usage" },
  { name: "keys", path: () => "/dashboard/keys", heading: "API keys" },
  { name: "playground", path: () => "/dashboard/playground", heading: "Playground" },
  { name: "endpoints", path: () => "/dashboard/endpoints", heading: "Endpoints" },
  { name: "endpoint", path: () => `/dashboard/endpoints/${made.apiId}`, heading: /./ },
  { name: "marketplace", path: () => "/dashboard/marketplace", heading: "Marketplace" },
  { name: "tasks", path: () => "/dashboard/tasks", heading: "Tasks" },
  { name: "monitors", path: () => "/dashboard/monitors", heading: "Monitors" },
  { name: "webhooks", path: () => "/dashboard/webhooks", heading: "Webhooks" },
  { name: "not-found", path: () => "/dashboard/nowhere", heading: /./ },
];

test("every signed-in page: accessible, about three phone screens at most, and pictured at both widths", async ({ page }, info) => {
  test.setTimeout(180_000);
  await signUp(page, "Surveyor");
  const endpoint = await postAsDashboard(page, "/v1/design-api", {
    original_prompt: "Facts about a landmark: its height in metres and the year it opened.",
  });
  made.apiId = Number((endpoint.response as { id?: number } | undefined)?.id);
  expect(made.apiId).toBeGreaterThan(0);

  const report: string[] = [];
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    for (const entry of PAGES) {
      await page.goto(entry.path());
      await expect(page.getByRole("heading", { level: 1, name: entry.heading })).toBeVisible();
      await page.waitForLoadState("networkidle");
      await shot(page, info, `${entry.name}-${width}`);
      const count = await screens(page);
      report.push(`${entry.name} at ${width}: ${count.toFixed(1)} screens`);
      await expectAccessible(page, `${entry.name} at ${width}`);
      if (width === "phone") expect.soft(count, `${entry.name} on a phone`).toBeLessThanOrEqual(PHONE_SCREENS);
    }
  }
  console.log(report.join("\n"));
});
