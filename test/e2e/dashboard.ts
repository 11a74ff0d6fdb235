/**
 * What the dashboard's browser tests share: signing up a fresh owner,
 * screenshots kept where the closing notes can list them, the phone and
 * desktop widths, and the accessibility check (axe-core).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, type TestInfo } from "@playwright/test";

/** The two widths every page is looked at: a laptop, and a phone (an iPhone's 390 CSS pixels). */
export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

const unique = Date.now().toString(36);
let owners = 0;

export interface Owner {
  name: string;
  email: string;
  password: string;
}

/** A fresh Free owner, signed up and signed in (each test its own, so one's rate limit is not another's). */
export async function signUp(page: Page, label = "Walker"): Promise<Owner> {
  owners += 1;
  const owner = {
    name: `${label} ${owners}`,
    email: `${label.toLowerCase()}-${owners}-${unique}@example.com`,
    password: "a long enough password",
  };
  await page.goto("/dashboard/signup");
  await page.getByLabel("Name").fill(owner.name);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Plan and usage" })).toBeVisible();
  return owner;
}

export async function signIn(page: Page, who: Pick<Owner, "email" | "password">): Promise<void> {
  await page.goto("/dashboard/signin");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
}

/**
 * A full-page screenshot in the test's output, and a copy under test-results/screens/ by name alone, so one run's
 * pictures of every page sit together to be looked at.
 */
export async function shot(page: Page, info: TestInfo, name: string): Promise<void> {
  const path = info.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  const screens = join(info.project.outputDir, "screens");
  mkdirSync(screens, { recursive: true });
  await page.screenshot({ path: join(screens, `${name}.png`), fullPage: true });
}

/** POSTs as the signed-in dashboard does (the session's cookie and its CSRF token) and answers the JSON body. */
export async function postAsDashboard(page: Page, path: string, body: unknown): Promise<Record<string, unknown>> {
  const session = (await (await page.request.get("/auth/session")).json()) as { csrf_token: string };
  const response = await page.request.post(path, { data: body, headers: { "X-CSRF-Token": session.csrf_token } });
  expect(response.status(), `${path}: ${await response.text()}`).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

/** The page's height in CSS pixels over the viewport's: how many screens a reader scrolls through. */
export async function screens(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollHeight / window.innerHeight);
}

/** Fails on any serious or critical WCAG A/AA violation axe-core finds on the page as it stands, naming each. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const described = bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(described, `accessibility of ${where}`).toEqual([]);
}
