/**
 * Every page of the dashboard, at a laptop's width and a phone's (issue 29):
 * no serious or critical accessibility violation (axe-core, WCAG 2.1 A/AA),
 * a phone's reader scrolls no more than about three screens for a page's main
 * task, and a screenshot of each page at each width is saved
 * (test-results/screens/<page>-<width>.png). The account has things on every
 * page first: searches, an endpoint published to the marketplace, a finished
 * task with its webhook delivered, a monitor.
 */
import { existsSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { expectAccessible, getAsDashboard, postAsDashboard, screens, shot, signUp, webhookReceiver, WIDTHS } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);

/** Screens a phone reader may scroll on a page: "about three", with room for a long name. */
const PHONE_SCREENS = 3.5;

interface Made {
  apiId: number;
  stub: string;
  taskId: string;
  monitorId: string;
  deliveryId: string;
}

/** Something on every page, made through the API with the dashboard's session. */
async function makeThings(page: Page, receiver: string): Promise<Made> {
  for (const prompt of ["When did the river bridge open?", "How tall is the lighthouse?", "Who designed the old library?"])
    await postAsDashboard(page, "/v1/search", { prompt });
  const endpoint = await postAsDashboard(page, "/v1/design-api", {
    original_prompt: "Facts about a landmark: its height in metres and the year it opened.",
  });
  const apiId = Number((endpoint.response as { id: number }).id);
  const published = await postAsDashboard(page, `/v1/design-api/${apiId}/publish`, {
    title: "Landmark facts",
    description: "The height and opening year of a landmark.",
    category: "Travel",
    tags: ["landmarks"],
  });
  const task = await postAsDashboard(page, "/v1/tasks", { prompt: "When did the river bridge open?", webhook: { url: receiver } });
  const monitor = await postAsDashboard(page, "/v1/monitors", {
    prompt: "Is the river bridge open?",
    schedule: { every_minutes: 60 },
    webhook: { url: receiver },
  });
  const taskId = String(task.id);
  await expect.poll(async () => (await getAsDashboard(page, `/v1/tasks/${taskId}`)).status, { timeout: 30_000 }).toBe("succeeded");
  let deliveryId = "";
  await expect
    .poll(
      async () => {
        const list = (await getAsDashboard(page, "/v1/webhooks/deliveries")).data as { id: string }[];
        deliveryId = list[0]?.id ?? "";
        return deliveryId;
      },
      { timeout: 30_000 },
    )
    .not.toBe("");
  return { apiId, stub: String(published.public_stub), taskId, monitorId: String(monitor.id), deliveryId };
}

const signedIn = (made: Made): { name: string; path: string }[] => [
  { name: "usage", path: "/dashboard/usage" },
  { name: "keys", path: "/dashboard/keys" },
  { name: "playground", path: "/dashboard/playground" },
  { name: "endpoints", path: "/dashboard/endpoints" },
  { name: "endpoint", path: `/dashboard/endpoints/${made.apiId}` },
  { name: "marketplace", path: "/dashboard/marketplace" },
  { name: "listing", path: `/dashboard/marketplace/${made.stub}` },
  { name: "tasks", path: "/dashboard/tasks" },
  { name: "task", path: `/dashboard/tasks/${made.taskId}` },
  { name: "monitors", path: "/dashboard/monitors" },
  { name: "monitor", path: `/dashboard/monitors/${made.monitorId}` },
  { name: "webhooks", path: "/dashboard/webhooks" },
  { name: "delivery", path: `/dashboard/webhooks/deliveries/${made.deliveryId}` },
  { name: "not-found", path: "/dashboard/nowhere" },
];

const signedOut = [
  { name: "signin", path: "/dashboard/signin" },
  { name: "signup", path: "/dashboard/signup" },
  { name: "claim", path: "/dashboard/claim" },
];

/** Looks at one page: its heading up, then a picture, its height in screens and axe's findings. */
async function survey(page: Page, info: Parameters<typeof shot>[1], name: string, path: string, width: keyof typeof WIDTHS) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.waitForLoadState("networkidle");
  // Nothing still loading: a page is judged as its reader sees it.
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  await shot(page, info, `${name}-${width}`);
  const count = await screens(page);
  await expectAccessible(page, `${name} at ${width}`);
  if (width === "phone") expect.soft(count, `${name} on a phone, in screens`).toBeLessThanOrEqual(PHONE_SCREENS);
  return `${name} at ${width}: ${count.toFixed(1)} screens`;
}

test("every page signed out: accessible, short on a phone, pictured at both widths", async ({ page }, info) => {
  const report: string[] = [];
  for (const width of ["desktop", "phone"] as const) {
    await page.setViewportSize(WIDTHS[width]);
    for (const entry of signedOut) report.push(await survey(page, info, entry.name, entry.path, width));
  }
  console.log(report.join("\n"));
});

test("every signed-in page with things on it: accessible, about three phone screens at most, pictured at both widths", async ({
  page,
  baseURL,
}, info) => {
  test.setTimeout(240_000);
  await signUp(page, "Surveyor");
  const receiver = webhookReceiver(baseURL!);
  const made = await makeThings(page, receiver);
  const report: string[] = [];
  for (const width of ["desktop", "phone"] as const) {
    await page.setViewportSize(WIDTHS[width]);
    for (const entry of signedIn(made)) report.push(await survey(page, info, entry.name, entry.path, width));
  }
  console.log(report.join("\n"));
});
