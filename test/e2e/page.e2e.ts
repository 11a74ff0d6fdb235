/** The dashboard page itself: served by this service with a strict policy, loading nothing from anywhere else. */
import { existsSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { chromiumPath } from "../../playwright.config.ts";

test.skip(!existsSync(chromiumPath), `Debian's chromium is not installed at ${chromiumPath} (apt-get install chromium)`);

test("the page loads under a strict Content-Security-Policy and requests nothing from another host", async ({ page, baseURL }) => {
  const foreign: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin !== new URL(baseURL!).origin && url.protocol !== "data:" && url.protocol !== "blob:") foreign.push(request.url());
  });
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto("/dashboard/signin");
  expect(response!.status()).toBe(200);
  const headers = response!.headers();
  expect(headers["content-security-policy"]).toContain("default-src 'self'");
  expect(headers["x-frame-options"]).toBe("DENY");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(foreign).toEqual([]);
  expect(violations).toEqual([]);
});
