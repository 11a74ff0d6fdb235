/**
 * Monitors in the dashboard, in Debian's Chromium, as a new Free owner: a
 * monitor made from the Monitors page (a bad cron and a bad webhook URL
 * answered at their fields first) runs at once, and its first run shows in
 * its runs, succeeded, linking to its task; it is paused and resumed from
 * the list and from its page, its schedule changed to a cron, what changed
 * between two runs shown readably (written in, then for real: a monitor
 * every 3 seconds over a page the e2e server rewrites), and it is deleted
 * after a confirmation.
 * The compact menu works at phone width, and the pages fit it. Screenshots
 * at desktop and phone width go to the test output.
 */
import { existsSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { newOwner, shot, signIn, signUp, webhookReceiver } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);
test.describe.configure({ mode: "serial" });

const owner = newOwner("Monitor Owner");
const PROMPT = "When was the Eiffel Tower completed?";
const shared: { monitorId?: string; runId?: string } = {};

/** The value of one of the monitor's facts ("Status", "Schedule", ...). */
const fact = (page: Page, name: string) =>
  page
    .locator("dl.facts > div")
    .filter({ has: page.getByRole("term").getByText(name, { exact: true }) })
    .getByRole("definition");

const runsTable = (page: Page) => page.getByRole("table", { name: "Runs" });

test("a monitor made on the Monitors page runs at once: its first run succeeds and links to its task", async ({ page, baseURL }, info) => {
  await signUp(page, owner);

  await page.getByRole("link", { name: "Monitors" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Monitors" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Monitors" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByText("No monitors yet.")).toBeVisible();

  // A cron the API cannot read, and a webhook it refuses: each message at its field.
  await page.getByLabel("Prompt").fill(PROMPT);
  await page.getByLabel("On a cron schedule").check();
  await page.getByLabel("Cron expression (UTC)").fill("every tuesday");
  await page.getByLabel("Webhook URL").fill(webhookReceiver(baseURL!));
  await page.getByRole("button", { name: "Create monitor" }).click();
  const cron = page.getByLabel("Cron expression (UTC)");
  await expect(cron).toHaveAttribute("aria-invalid", "true");
  await expect(cron).toHaveAccessibleDescription(/cron must have 5 fields .* it has 2/);
  await shot(page, info, "monitor-bad-cron");

  await page.getByLabel("Every few minutes").check();
  await expect(page.getByLabel("Minutes between runs")).toHaveValue("60");
  await page.getByLabel("Webhook URL").fill("http://intranet.invalid/hook");
  await page.getByRole("button", { name: "Create monitor" }).click();
  await expect(page.getByLabel("Webhook URL")).toHaveAccessibleDescription(/a webhook URL must be https/);

  await page.getByLabel("Webhook URL").fill(webhookReceiver(baseURL!));
  await page.getByRole("button", { name: "Create monitor" }).click();
  await expect(page.getByRole("heading", { level: 1, name: /^Monitor mon_/ })).toBeVisible();
  shared.monitorId = page.url().split("/").pop()!;
  expect(shared.monitorId).toMatch(/^mon_/);
  await expect(page.getByLabel("What it asks")).toHaveText(PROMPT);
  await expect(fact(page, "Status")).toHaveText("Active");
  await expect(fact(page, "Schedule")).toHaveText("Every hour");

  // The first run is due at once: the page follows it until it has succeeded, its answer the first.
  const run = runsTable(page).getByRole("row").nth(1);
  await expect(run.getByText("Succeeded")).toBeVisible({ timeout: 30_000 });
  await expect(run.getByText("First answer")).toBeVisible();
  await expect(fact(page, "Last answer")).not.toHaveText("None yet");
  await shot(page, info, "monitor");

  const link = run.getByRole("link", { name: /^task_/ });
  shared.runId = (await link.textContent())!;
  await link.click();
  await expect(page.getByRole("heading", { level: 1, name: `Task ${shared.runId}` })).toBeVisible();
  await expect(page.getByRole("region", { name: "Answer" })).toContainText("1889");
});

test("a monitor is paused and resumed from the list, where its schedule, next run and last answer show", async ({ page }, info) => {
  await signIn(page, owner);
  await page.goto("/dashboard/monitors");
  const row = page.getByRole("row", { name: new RegExp(shared.monitorId!) });
  await expect(row.getByRole("link", { name: PROMPT })).toBeVisible();
  await expect(row.getByText("Active")).toBeVisible();
  await expect(row.getByRole("cell", { name: "Every hour" })).toBeVisible();
  await expect(row.getByRole("link", { name: `Last answer: task ${shared.runId}` })).toBeVisible();
  await shot(page, info, "monitors");

  await page.getByRole("button", { name: `Pause monitor ${shared.monitorId}` }).click();
  await expect(page.getByText(`Monitor ${shared.monitorId} paused.`)).toBeVisible();
  await expect(row.getByRole("cell", { name: "Paused", exact: true })).toHaveCount(2); // its status, and its next run
  await page.getByRole("button", { name: `Resume monitor ${shared.monitorId}` }).click();
  await expect(row.getByRole("cell", { name: "Active", exact: true })).toBeVisible();
  await expect(row.getByRole("cell", { name: "Paused", exact: true })).toHaveCount(0);
});

test("a monitor's page pauses and resumes it, and changes its schedule to a cron (a bad one answered at the field)", async ({ page }) => {
  await signIn(page, owner);
  await page.goto(`/dashboard/monitors/${shared.monitorId}`);
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(page.getByText("Monitor paused: it runs no more until resumed.")).toBeVisible();
  await expect(fact(page, "Status")).toHaveText("Paused");
  await expect(fact(page, "Next run")).toHaveText("Paused");
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(fact(page, "Status")).toHaveText("Active");

  const form = page.getByRole("form", { name: "Schedule and webhook" });
  await form.getByLabel("On a cron schedule").check();
  await form.getByLabel("Cron expression (UTC)").fill("* * * * * *");
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(form.getByLabel("Cron expression (UTC)")).toHaveAccessibleDescription(/fires more often than every 0.05 minutes/);
  await form.getByLabel("Cron expression (UTC)").fill("0 9 * * 1");
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText(/^Saved: the next run is due/)).toBeVisible();
  await expect(fact(page, "Schedule")).toHaveText("Cron 0 9 * * 1 (UTC)");
  // The webhook too: refused at its field, then changed.
  const webhook = form.getByLabel("Webhook URL");
  const was = await webhook.inputValue();
  await webhook.fill("http://intranet.invalid/hook");
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(webhook).toHaveAccessibleDescription(/a webhook URL must be https/);
  await webhook.fill(was.replace(/\/hook$/, "/hook?monitor=1"));
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText(/^Changes are sent to/)).toContainText("/hook?monitor=1");
  // The next Monday at 09:00 UTC, as the browser's clock reads it.
  const next = await page.evaluate(async (id) => {
    const { csrf_token } = (await (await fetch("/auth/session")).json()) as { csrf_token: string };
    return ((await (await fetch(`/v1/monitors/${id}`, { headers: { "x-csrf-token": csrf_token } })).json()) as { next_run_at: string })
      .next_run_at;
  }, shared.monitorId!);
  const at = new Date(next);
  expect([at.getUTCDay(), at.getUTCHours(), at.getUTCMinutes()]).toEqual([1, 9, 0]);
});

test("a run whose answer changed shows what changed: fields before and after, or sources and claims added and removed", async ({
  page,
}, info) => {
  await signIn(page, owner);
  // The loopback web does not change between two runs here, so the runs' comparisons are written in on the way.
  await page.route("**/v1/monitors/*/runs*", async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    const [first] = body.data;
    body.data = [
      {
        ...first,
        id: "task_01zzzzzzzzzzzzzzzzzzzzzzz2",
        monitor: { compared: true, changed: true, changes: { kind: "fields", fields: [{ path: "year", before: 1887, after: 1889 }] } },
      },
      {
        ...first,
        id: "task_01zzzzzzzzzzzzzzzzzzzzzzz1",
        monitor: {
          compared: true,
          changed: true,
          changes: {
            kind: "prose",
            sources: { added: ["http://wiki.test/eiffel.html"], removed: [] },
            claims: { added: ["The tower was completed in 1889 [http://wiki.test/eiffel.html]."], removed: ["The tower is unfinished."] },
          },
        },
      },
      ...body.data,
    ];
    await route.fulfill({ response, json: body });
  });
  await page.goto(`/dashboard/monitors/${shared.monitorId}`);
  const rows = runsTable(page).getByRole("row");
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1).getByText("Changed", { exact: true })).toBeVisible();
  await rows.nth(1).getByText("What changed").click();
  const fields = page.getByRole("group", { name: "What changed in run task_01zzzzzzzzzzzzzzzzzzzzzzz2" });
  await expect(fields.getByRole("term")).toHaveText("year");
  await expect(fields.getByRole("definition")).toHaveText("before: 1887 → after: 1889");
  await rows.nth(2).getByText("What changed").click();
  const prose = page.getByRole("group", { name: "What changed in run task_01zzzzzzzzzzzzzzzzzzzzzzz1" });
  await expect(prose).toContainText("Sources added");
  await expect(prose).toContainText("http://wiki.test/eiffel.html");
  await expect(prose).toContainText("Claims removed");
  await expect(prose).toContainText("The tower is unfinished.");
  await expect(rows.nth(3).getByText("First answer")).toBeVisible();
  await shot(page, info, "monitor-changes");
  await page.unrouteAll();
});

test("a monitor every 3 seconds sees the page behind its answer change: that run says Changed, with the claims added and removed", async ({
  page,
  baseURL,
  request,
}, info) => {
  await signIn(page, owner);
  await page.goto("/dashboard/monitors");
  await page.getByLabel("Prompt").fill("What did the council decide about the river bridge?");
  await page.getByLabel("Minutes between runs").fill("0.05");
  await page.getByLabel("Webhook URL").fill(webhookReceiver(baseURL!));
  await page.getByRole("button", { name: "Create monitor" }).click();
  await expect(page.getByRole("heading", { level: 1, name: /^Monitor mon_/ })).toBeVisible();
  await expect(fact(page, "Schedule")).toHaveText("Every 3 seconds");
  const world = webhookReceiver(baseURL!).replace(/\/hook$/, "/world/bridge");
  try {
    await expect(runsTable(page).getByText("First answer")).toBeVisible({ timeout: 30_000 });
    expect((await request.post(`${world}/postponed`)).ok()).toBe(true);
    // The runs come by themselves (the page reads them while the next is due): one of them sees the change.
    const changed = runsTable(page)
      .getByRole("row")
      .filter({ has: page.getByText("Changed", { exact: true }) });
    await expect(changed.first()).toBeVisible({ timeout: 30_000 });
    await page.getByRole("button", { name: "Pause" }).click();
    await expect(fact(page, "Status")).toHaveText("Paused");
    await changed.first().getByText("What changed").click();
    const changes = changed.first().getByRole("group", { name: /^What changed in run task_/ });
    await expect(changes).toContainText("Claims added");
    await expect(changes).toContainText("postponed its vote");
    await expect(changes).toContainText("Claims removed");
    await expect(changes).toContainText("approved the new river bridge");
    await shot(page, info, "monitor-changed");
  } finally {
    await request.post(`${world}/approved`);
  }
  await page.getByRole("button", { name: "Delete monitor" }).click();
  await page.getByRole("dialog", { name: "Delete this monitor?" }).getByRole("button", { name: "Yes, delete it" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Monitors" })).toBeVisible();
});

test("at phone width the menu opens and closes, and the monitors' pages fit without sideways scrolling", async ({ page }, info) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, owner);
  const menu = page.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(page.getByRole("link", { name: "Monitors" })).toBeHidden();
  // The banner is one row: the brand, sign-out and the menu side by side.
  const brand = await page.getByRole("link", { name: "Search dashboard" }).boundingBox();
  const toggle = await menu.boundingBox();
  expect(Math.abs(brand!.y + brand!.height / 2 - (toggle!.y + toggle!.height / 2))).toBeLessThan(8);
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByText(`Signed in as ${owner.email}`)).toBeVisible();
  await page.screenshot({ path: info.outputPath("phone-menu.png") });
  await page.keyboard.press("Escape");
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(menu).toBeFocused();
  await menu.click();
  await page.getByRole("link", { name: "Monitors" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Monitors" })).toBeVisible();
  await expect(menu).toHaveAttribute("aria-expanded", "false");

  for (const [path, name] of [
    ["/dashboard/monitors", "phone-monitors"],
    [`/dashboard/monitors/${shared.monitorId}`, "phone-monitor"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText(/^Loading/)).toHaveCount(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect({ path, overflow }).toEqual({ path, overflow: 0 });
    await shot(page, info, name);
  }
});

test("the banner's eight pages and Docs: one line on a wide screen with the account's email, a row of their own on a narrower one, the Menu below", async ({
  page,
}, info) => {
  await signIn(page, owner);
  const nav = page.getByRole("navigation", { name: "Main" });
  const menu = page.getByRole("button", { name: "Menu" });
  for (const width of [1440, 1280, 1100, 1000, 800]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/dashboard/monitors");
    await expect(page.getByRole("heading", { level: 1, name: "Monitors" })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect({ width, overflow }).toEqual({ width, overflow: 0 });
    const brand = (await page.getByRole("link", { name: "Search dashboard" }).boundingBox())!;
    if (width >= 1024) {
      await expect(menu).toBeHidden();
      // The eight pages, and the API reference (Docs) after them.
      const links = nav.getByRole("link");
      await expect(links).toHaveCount(9);
      await expect(links.last()).toHaveAccessibleName(/^Docs/);
      const first = (await links.first().boundingBox())!;
      const last = (await links.last().boundingBox())!;
      // All on one row: beside the brand on a wide screen, under it on a narrower one.
      expect(Math.abs(first.y - last.y)).toBeLessThan(4);
      if (width >= 1200) expect(Math.abs(first.y - brand.y)).toBeLessThan(12);
      else expect(first.y).toBeGreaterThan(brand.y + brand.height);
      if (width >= 1200) expect((await page.locator(".who-email").boundingBox())!.width).toBeGreaterThan(100);
    } else {
      await expect(menu).toBeVisible();
      await expect(nav.getByRole("link")).toHaveCount(0);
    }
    await page.screenshot({ path: info.outputPath(`banner-${width}.png`) });
  }
});

test("a monitor is deleted after a confirmation, from the list and from its page; its runs stay readable as tasks", async ({
  page,
  baseURL,
}) => {
  await signIn(page, owner);
  const second = await page.evaluate(
    async ({ prompt, url }) => {
      const { csrf_token } = (await (await fetch("/auth/session")).json()) as { csrf_token: string };
      const response = await fetch("/v1/monitors", {
        method: "POST",
        headers: { "x-csrf-token": csrf_token, "content-type": "application/json" },
        body: JSON.stringify({ prompt, schedule: { cron: "@daily" }, webhook: { url } }),
      });
      return ((await response.json()) as { id: string }).id;
    },
    { prompt: "What will the river bridge cost?", url: webhookReceiver(baseURL!) },
  );
  await page.goto("/dashboard/monitors");
  await expect(page.getByRole("row")).toHaveCount(3);
  await expect(page.getByRole("row", { name: new RegExp(second) }).getByRole("cell", { name: "Cron @daily (UTC)" })).toBeVisible();
  await page.getByRole("button", { name: `Delete monitor ${second}` }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this monitor?" });
  await expect(dialog).toContainText("What will the river bridge cost?");
  // Cancel keeps it.
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("row")).toHaveCount(3);
  await page.getByRole("button", { name: `Delete monitor ${second}` }).click();
  await dialog.getByRole("button", { name: "Yes, delete it" }).click();
  await expect(page.getByText(`Monitor ${second} deleted.`)).toBeVisible();
  await expect(page.getByRole("row")).toHaveCount(2);

  await page.getByRole("link", { name: PROMPT }).click();
  await expect(page.getByRole("heading", { level: 1, name: `Monitor ${shared.monitorId}` })).toBeVisible();
  await page.getByRole("button", { name: "Delete monitor" }).click();
  await page.getByRole("dialog", { name: "Delete this monitor?" }).getByRole("button", { name: "Yes, delete it" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Monitors" })).toBeVisible();
  await expect(page.getByText("No monitors yet.")).toBeVisible();

  await page.goto(`/dashboard/monitors/${shared.monitorId}`);
  await expect(page.getByText(/not found/i).first()).toBeVisible();
  await page.goto(`/dashboard/tasks/${shared.runId}`);
  await expect(page.getByRole("heading", { level: 1, name: `Task ${shared.runId}` })).toBeVisible();
});
