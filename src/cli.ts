/**
 * The operator's CLI: `npm run cli -- <command>`. It opens the same database
 * the server uses (Postgres beside a running server, or the embedded one
 * when no server holds it) and calls the same verbs as the routes. The
 * commands are a table (src/cli/commands.ts), one small module per group.
 */
import { runCommandLine } from "./cli/run.ts";

process.exitCode = await runCommandLine(process.argv.slice(2));
