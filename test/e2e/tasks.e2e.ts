/**
 * Tasks and webhooks in the dashboard, in Debian's Chromium, as a new Free
 * owner: a task started from the Tasks page is followed to its answer and
 * its sources; a second task waits queued behind a running one (Free runs
 * one at a time) and is canceled; the webhook secret is hidden, revealed
 * and rotated; the task's webhook is delivered to the e2e server's loopback
 * receiver, listed with its attempts, and delivered again. Screenshots of
 * both pages at desktop and phone width go to the test output.
 */
import { existsSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";
import { SLOW_WORD } from "./claim-link.ts";
import { newOwner, shot, signIn, webhookReceiver } from "./dashboard.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);
test.describe.configure({ mode: "serial" });

const owner = newOwner("Tasks Owner");
const shared: { taskId?: string; deliveryPath?: string } = {};

/** Starts a task from the Tasks page and answers its id, read from the task's own page it lands on. */
async function startTask(page: Page, prompt: string, webhook?: string): Promise<string> {
  await page.goto("/dashboard/tasks");
  await page.getByLabel("Prompt").fill(prompt);
  if (webhook) await page.getByLabel("Webhook URL (optional)").fill(webhook);
  await page.getByRole("button", { name: "Start task" }).click();
  await expect(page.getByRole("heading", { level: 1, name: /^Task task_/ })).toBeVisible();
  return page.url().split("/").pop()!;
}

const facts = (page: Page) => page.locator("dl.facts");
/** The value of one of the task's facts ("Started", "Attempts", ...). */
const fact = (page: Page, name: string) =>
  facts(page)
    .locator("div")
    .filter({ has: page.getByRole("term").getByText(name, { exact: true }) })
    .getByRole("definition");

test("a task started from the Tasks page is followed to its answer, with its sources", async ({ page, baseURL }, info) => {
  await page.goto("/dashboard/signup");
  await page.getByLabel("Name").fill("Task Owner");
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Plan and usage" })).toBeVisible();

  await page.getByRole("link", { name: "Tasks" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
  await expect(page.getByText("No tasks yet.")).toBeVisible();

  // A webhook URL the API refuses: its message shows at the field.
  await page.getByLabel("Prompt").fill("When was the Eiffel Tower completed?");
  await page.getByLabel("Webhook URL (optional)").fill("http://intranet.invalid/hook");
  await page.getByRole("button", { name: "Start task" }).click();
  await expect(page.getByText("a webhook URL must be https").first()).toBeVisible();

  const receiver = webhookReceiver(baseURL!);
  shared.taskId = await startTask(page, "When was the Eiffel Tower completed?", receiver);
  expect(shared.taskId).toMatch(/^task_/);
  await expect(facts(page)).toContainText("Succeeded");
  const answer = page.getByRole("region", { name: "Answer" });
  await expect(answer).toContainText("1889");
  const citation = page.getByRole("link", { name: "Source 1" }).first();
  await expect(citation).toHaveAttribute("href", /#task-source-1$/);
  await expect(page.locator("#task-source-1")).toContainText("Eiffel Tower");
  await expect(page.getByRole("button", { name: "Cancel task" })).toHaveCount(0);
  await expect(facts(page)).not.toContainText("Not yet");
  await shot(page, info, "task-succeeded");

  await page.getByRole("link", { name: "Tasks", exact: true }).first().click();
  const row = page.getByRole("row", { name: new RegExp(shared.taskId) });
  await expect(row.getByText("Succeeded")).toBeVisible();
  await expect(row.getByText("Search")).toBeVisible();
});

test("a task's event stream that drops before the end is opened again after the last event it had (Last-Event-ID)", async ({ page }) => {
  await signIn(page, owner);
  const asked: (string | undefined)[] = [];
  await page.route("**/v1/tasks/*/events", async (route) => {
    asked.push(route.request().headers()["last-event-id"]);
    // The first stream ends after the task's first event, as a proxy cutting it would.
    if (asked.length === 1)
      await route.fulfill({
        status: 200,
        contentType: "text/event-stream",
        body: 'id: 1\nevent: status\ndata: {"type":"status","status":"queued"}\n\n',
      });
    else await route.continue();
  });
  // Slow enough that the page follows it rather than finding it finished.
  await startTask(page, `When was the Eiffel Tower completed, asks the ${SLOW_WORD}?`);
  await expect(page.getByText(/^Running: searching/)).toBeVisible();
  await expect.poll(() => asked.slice(0, 2)).toEqual([undefined, "1"]);
  await expect(facts(page)).toContainText("Succeeded", { timeout: 30_000 });
  await expect(page.getByRole("region", { name: "Answer" })).toContainText("1889");
  await page.unrouteAll();
});

test("a Free account runs one task at a time: the second waits queued and is canceled, and so is the running one", async ({
  page,
}, info) => {
  await signIn(page, owner);
  const first = await startTask(page, `How fast does a ${SLOW_WORD} walk?`);
  await expect(facts(page)).toContainText("Running");
  await expect(page.getByText(/^Running: searching/)).toBeVisible();
  // Its start is read back as it starts.
  await expect(fact(page, "Started")).not.toHaveText("Not yet");

  const second = await startTask(page, "When was the Eiffel Tower completed?");
  await expect(facts(page)).toContainText("Queued");
  await expect(page.getByText(/^Queued: waiting/)).toBeVisible();
  await shot(page, info, "task-queued");
  await page.getByRole("button", { name: "Cancel task" }).click();
  await expect(page.getByText("Task canceled.")).toBeVisible();
  await expect(facts(page)).toContainText("Canceled");
  await expect(page.getByRole("button", { name: "Cancel task" })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Answer" })).toHaveCount(0);

  // The list by status: the running one can be canceled from its row.
  await page.goto("/dashboard/tasks");
  await page.getByLabel("Status").selectOption({ label: "Running" });
  const running = page.getByRole("row", { name: new RegExp(first) });
  await expect(running.getByText("Running")).toBeVisible();
  await expect(page.getByRole("row", { name: new RegExp(second) })).toHaveCount(0);
  await shot(page, info, "tasks-running");
  await page.getByRole("button", { name: `Cancel task ${first}` }).click();
  await expect(running.getByText("Canceled")).toBeVisible();
  await page.getByLabel("Status").selectOption({ label: "Canceled" });
  await expect(page.getByRole("row", { name: new RegExp(second) }).getByText("Canceled")).toBeVisible();
  await expect(page.getByRole("row", { name: new RegExp(first) }).getByText("Canceled")).toBeVisible();
  await page.getByLabel("Status").selectOption({ label: "All" });
  await expect(page.getByRole("row")).toHaveCount(5); // the header and four tasks
  await shot(page, info, "tasks");
});

test("the webhook secret is hidden, revealed and rotated; the tasks' deliveries are listed with their attempts, and one delivered again", async ({
  page,
  baseURL,
}, info) => {
  await signIn(page, owner);
  // A task whose receiver refuses its webhook (a 500): that delivery stays pending.
  await startTask(page, "When was the Eiffel Tower completed?", webhookReceiver(baseURL!).replace(/\/hook$/, "/refuse"));
  await expect(facts(page)).toContainText("Succeeded");
  await page.getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
  const secretBox = page.getByLabel("Webhook signing secret");
  await expect(secretBox).toHaveValue(/^whsec_•+$/);
  await page.getByRole("button", { name: "Reveal" }).click();
  const before = await secretBox.inputValue();
  expect(before).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  await page.getByRole("button", { name: "Hide" }).click();
  await expect(secretBox).toHaveValue(/^whsec_•+$/);

  await page.getByRole("button", { name: "Rotate secret" }).click();
  const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
  await expect(dialog).toContainText("24 hours");
  await dialog.getByRole("button", { name: "Yes, rotate it" }).click();
  await expect(page.getByText(/A new signing secret is in use/)).toBeVisible();
  await expect(page.getByText(/The previous secret also signs until/)).toBeVisible();
  await page.getByRole("button", { name: "Reveal" }).click();
  const after = await secretBox.inputValue();
  expect(after).toMatch(/^whsec_/);
  expect(after).not.toBe(before);

  // The first task's webhook reached the receiver.
  const row = page.getByRole("row", { name: /\/hook/ });
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(row.getByText("Delivered")).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(row.getByRole("cell", { name: "200", exact: true })).toBeVisible();
  await expect(row.getByRole("cell", { name: /^\d[\d,]* ms$/ })).toBeVisible();
  // The refused one is tried again later: pending, the receiver's 500 and why, and no Redeliver yet.
  const refused = page.getByRole("row", { name: /\/refuse/ });
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(refused.getByRole("cell", { name: "500", exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(refused.getByRole("cell", { name: "the receiver answered 500" })).toBeVisible();
  await expect(refused.getByText("Pending")).toBeVisible();
  await expect(refused.getByRole("button", { name: /^Redeliver/ })).toHaveCount(0);
  // The canceled tasks had no webhook: two deliveries only.
  await expect(page.getByRole("row")).toHaveCount(3);
  await shot(page, info, "webhooks");

  await row.getByRole("button", { name: /^Redeliver task\.succeeded/ }).click();
  await expect(page.getByText("task.succeeded is being sent again.")).toBeVisible();
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(row.getByRole("cell", { name: "2", exact: true })).toBeVisible({ timeout: 1000 });
    await expect(row.getByText("Delivered")).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });

  await row.getByRole("link", { name: /task\.succeeded delivery/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "task.succeeded delivery" })).toBeVisible();
  const attempts = page.getByRole("table", { name: "Delivery attempts" });
  await expect(attempts.getByRole("row")).toHaveCount(3);
  await expect(page.getByLabel("The body sent (JSON)")).toContainText(shared.taskId!);
  await shot(page, info, "webhook-delivery");
  shared.deliveryPath = new URL(page.url()).pathname;
  await page.getByRole("link", { name: "the task" }).click();
  await expect(page.getByRole("heading", { level: 1, name: `Task ${shared.taskId}` })).toBeVisible();
});

test("the Tasks and Webhooks pages fit a phone without sideways scrolling", async ({ page }, info) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, owner);
  for (const [path, name] of [
    ["/dashboard/tasks", "phone-tasks"],
    [`/dashboard/tasks/${shared.taskId}`, "phone-task"],
    ["/dashboard/webhooks", "phone-webhooks"],
    [shared.deliveryPath!, "phone-webhook-delivery"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText(/^Loading/)).toHaveCount(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect({ path, overflow }).toEqual({ path, overflow: 0 });
    await shot(page, info, name);
  }
});

test("the task list reads a page at a time: Load more adds the older tasks", async ({ page }) => {
  await signIn(page, owner);
  // 18 more tasks (23 in all), started and canceled over the API with the page's own session.
  const made = await page.evaluate(async (word) => {
    const { csrf_token } = (await (await fetch("/auth/session")).json()) as { csrf_token: string };
    const headers = { "x-csrf-token": csrf_token, "content-type": "application/json" };
    const ids: string[] = [];
    for (let i = 0; i < 18; i++) {
      const task = (await (
        await fetch("/v1/tasks", { method: "POST", headers, body: JSON.stringify({ prompt: `${word} number ${i}` }) })
      ).json()) as { id: string };
      ids.push(task.id);
    }
    for (const id of ids) await fetch(`/v1/tasks/${id}/cancel`, { method: "POST", headers });
    return ids;
  }, SLOW_WORD);
  expect(made).toHaveLength(18);
  await page.goto("/dashboard/tasks");
  const rows = page.getByRole("table", { name: "Tasks" }).getByRole("row");
  await expect(rows).toHaveCount(21); // the header and the newest 20
  await expect(page.getByRole("row", { name: new RegExp(shared.taskId!) })).toHaveCount(0);
  await page.getByRole("button", { name: "Load more tasks" }).click();
  await expect(rows).toHaveCount(24);
  await expect(page.getByRole("row", { name: new RegExp(shared.taskId!) })).toBeVisible();
  await expect(page.getByRole("button", { name: "Load more tasks" })).toHaveCount(0);

  // A task that is not the account's (or does not exist) reads as not found.
  await page.goto("/dashboard/tasks/task_01doesnotexist0000000000000");
  await expect(page.getByText(/not found/i).first()).toBeVisible();
});
