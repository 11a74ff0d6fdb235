/**
 * Browser tests (`npm run test:e2e`, part of `npm test`): Playwright driving
 * Debian's Chromium (/usr/bin/chromium, installed by .ci/run when missing;
 * Playwright's own browser download is not used). The server is the real
 * app under Bun with the loopback search world (test/e2e/server.ts).
 */
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3900);
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: "test/e2e",
  testMatch: "**/*.e2e.ts",
  outputDir: "test-results",
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: chromiumPath,
      // Headless Chromium on a closed network: no background requests, no sandbox as root.
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    screenshot: "only-on-failure",
  },
  webServer: {
    command: "node_modules/.bin/bun test/e2e/server.ts",
    url: `http://127.0.0.1:${port}/healthz`,
    env: { E2E_PORT: String(port), ...(process.env.TEST_DATABASE_URL ? { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL } : {}) },
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
  },
});
