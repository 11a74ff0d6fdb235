/** The database the server uses, opened by the CLI: Postgres beside a running server, or the embedded one when no server holds it. */
import { openDatabase, type DatabaseHandle } from "../../db/client.ts";
import type { EmbeddedDatabaseBusy } from "../../db/embedded-lock.ts";
import { migrateDatabase } from "../../db/migrate.ts";
import { KEY_ENV } from "../accounts/keys.ts";
import type { Config } from "../config.ts";
import type { CliCommand } from "./command.ts";

export async function openForCli(config: Config): Promise<DatabaseHandle> {
  const handle = await openDatabase(
    config.database.url
      ? { kind: "postgres", url: config.database.url, poolMax: 2 }
      : { kind: "pglite", dataDir: config.dataDir, role: "cli" },
  );
  await migrateDatabase(handle, config.database.url);
  return handle;
}

/** Exit code 3's message: the embedded database is the running server's, and how to get what was wanted anyway. */
export function busyMessage(error: EmbeddedDatabaseBusy, port: number): string {
  return [
    `The embedded database in ${error.dataDir} is held by the running ${error.holderRole} (pid ${error.holderPid}).`,
    "PGlite lets only one process open it, so this command did not touch it.",
    "",
    "To get another key while the server runs, ask the server with a key you already have:",
    `  curl -sS -X POST http://localhost:${port}/v1/keys -H "X-API-Key: $${KEY_ENV}"`,
    "Otherwise stop the server and run this command again, or set DATABASE_URL so the server",
    "and the CLI share a Postgres database.",
  ].join("\n");
}

export const migrateCommand: CliCommand = {
  name: "db migrate",
  section: "Database",
  usage: "db migrate",
  summary: ["apply pending migrations"],
  details:
    "Also `npm run db:migrate`. Every command applies pending migrations when it opens the database, and so does the server at start (under an advisory lock); this one does nothing else.",
  async run(cli) {
    const handle = await cli.database();
    cli.out(`migrations applied (${handle.description})`);
  },
};
