/**
 * The server the browser tests talk to (started by Playwright's webServer,
 * under Bun): the real app on E2E_PORT, on a fresh database, searching the
 * loopback search world (providers speaking SearXNG's and Brave's formats,
 * pages under fake host names), so the playground streams real answers.
 */
import { startTestApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/database.ts";
import { startSearchWorld } from "../helpers/search-world.ts";

const port = Number(process.env.E2E_PORT ?? 3900);
const world = startSearchWorld();
const database = await freshDatabase();
const app = await startTestApp(database, {
  env: world.env({ PORT: String(port), SIGNUPS_PER_MINUTE: "1000", SIGNINS_PER_MINUTE: "1000", LOG_LEVEL: "warn" }),
  resolver: world.resolver,
  port,
});
process.stdout.write(`e2e server on ${app.url}\n`);

const stop = async () => {
  await app.stop();
  await database.drop();
  world.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
