/**
 * Writes the app's /openapi.json to a file, for `npm run lint:openapi`:
 * the real app (buildApp, as the tests start it) on an in-memory database,
 * asked over HTTP like any client would.
 *
 *   bun test/openapi/write-document.ts [file]   (default .openapi/openapi.json)
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { startTestApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/database.ts";

const file = process.argv[2] ?? ".openapi/openapi.json";
const database = await freshDatabase();
const app = await startTestApp(database);
try {
  const response = await app.fetch("/openapi.json");
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  mkdirSync(dirname(file), { recursive: true });
  await Bun.write(file, JSON.stringify(await response.json(), null, 2) + "\n");
  console.log(`wrote ${file}`);
} finally {
  await app.stop();
  await database.drop();
}
