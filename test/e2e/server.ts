/**
 * The server the browser tests talk to (started by Playwright's webServer,
 * under Bun): the real app on E2E_PORT, on a fresh database, searching the
 * loopback search world (providers speaking SearXNG's and Brave's formats,
 * pages under fake host names), so the playground streams real answers.
 * Like a first start, it makes a `local` account with a one-time sign-in link (claim-link.ts).
 * A webhook receiver on loopback (allowed through FETCH_ALLOW_HOSTS) hears
 * the tasks' webhooks; prompts with SLOW_WORD hold a task running. The
 * receiver also changes the loopback web for the monitors' tests: POST
 * /world/bridge/postponed rewrites the river bridge's news page (a monitor's
 * next answer changes), /world/bridge/approved puts it back.
 */
import { writeFileSync } from "node:fs";
import { mintSignInLink, signInLinkUrl } from "../../src/accounts/sign-in-links.ts";
import { startTestApp } from "../helpers/app.ts";
import { article } from "../helpers/peers/pages.ts";
import { freshDatabase } from "../helpers/database.ts";
import { startSearchWorld } from "../helpers/search-world.ts";
import { claimLinkFile, SLOW_WORD, webhookReceiverFile } from "./claim-link.ts";

const port = Number(process.env.E2E_PORT ?? 3900);
const world = startSearchWorld();
// Long enough to see a task queued behind it, short enough not to slow the run; the providers are given the time.
world.slowOver(SLOW_WORD, 6_000);
const BRIDGE = [
  "The city council approved the new river bridge on Tuesday after a two-year debate about its cost and design.",
  "Construction will begin in March and is expected to take eighteen months, according to the transport department.",
  "The bridge will carry two lanes of traffic, a protected cycle path and a wide walkway for pedestrians.",
];
const POSTPONED =
  "The city council postponed its vote on the new river bridge on Tuesday after a two-year debate about its cost and design.";
const bridgePage = (postponed: boolean) =>
  world.site.put(
    "/bridge.html",
    article("Council approves the river bridge", postponed ? [POSTPONED, ...BRIDGE.slice(1)] : BRIDGE, { site: "news.test" }),
  );

// Its /refuse answers 500, as a receiver that is down does: that delivery stays pending, tried again later.
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/refuse") return new Response("receiver is down", { status: 500 });
    if (request.method === "POST" && path.startsWith("/world/bridge/")) {
      bridgePage(path.endsWith("/postponed"));
      return new Response("changed");
    }
    return new Response("ok");
  },
});
const receiverUrl = `http://127.0.0.1:${receiver.port}/hook`;
const database = await freshDatabase();
const env = world.env({
  PORT: String(port),
  SIGNUPS_PER_MINUTE: "1000",
  SIGNINS_PER_MINUTE: "1000",
  LOG_LEVEL: "warn",
  PROVIDER_TIMEOUT_MS: "10000",
  TASK_POLL_SECONDS: "0.5",
  // Every search reads its pages afresh: a page changed by /world/... is what a monitor's next run reads.
  CONTENTS_MAX_AGE_SECONDS: "0",
  // A monitor's first run starts within half a second of its making, and a schedule of seconds is allowed.
  MONITOR_MIN_EVERY_MINUTES: "0.05",
  MONITOR_TICK_SECONDS: "0.5",
});
const app = await startTestApp(database, {
  env: { ...env, FETCH_ALLOW_HOSTS: `${env.FETCH_ALLOW_HOSTS},127.0.0.1:${receiver.port}` },
  resolver: world.resolver,
  port,
});
const local = await app.account({ name: "local" });
writeFileSync(claimLinkFile(port), signInLinkUrl(app.url, (await mintSignInLink(app.accounts, local.accountId)).token));
writeFileSync(webhookReceiverFile(port), receiverUrl);
process.stdout.write(`e2e server on ${app.url}\n`);

const stop = async () => {
  await app.stop();
  await database.drop();
  world.stop();
  receiver.stop(true);
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
