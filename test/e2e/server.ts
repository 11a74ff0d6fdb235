/**
 * The server the browser tests talk to (started by Playwright's webServer,
 * under Bun): the real app on E2E_PORT, on a fresh database, searching the
 * loopback search world (providers speaking SearXNG's and Brave's formats,
 * pages under fake host names), so the playground streams real answers.
 * Like a first start, it makes a `local` account with a one-time sign-in link (claim-link.ts).
 */
import { writeFileSync } from "node:fs";
import { mintSignInLink, signInLinkUrl } from "../../src/accounts/sign-in-links.ts";
import { startTestApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/database.ts";
import { startSearchWorld } from "../helpers/search-world.ts";
import { claimLinkFile } from "./claim-link.ts";

const port = Number(process.env.E2E_PORT ?? 3900);
const world = startSearchWorld();
const database = await freshDatabase();
const app = await startTestApp(database, {
  env: world.env({ PORT: String(port), SIGNUPS_PER_MINUTE: "1000", SIGNINS_PER_MINUTE: "1000", LOG_LEVEL: "warn" }),
  resolver: world.resolver,
  port,
});
const local = await app.account({ name: "local" });
writeFileSync(claimLinkFile(port), signInLinkUrl(app.url, (await mintSignInLink(app.accounts, local.accountId)).token));
process.stdout.write(`e2e server on ${app.url}\n`);

const stop = async () => {
  await app.stop();
  await database.drop();
  world.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
