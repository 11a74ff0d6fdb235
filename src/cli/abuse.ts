/** Limit-evasion flags, for the operator to read. */
import { abuseReport, flagJson, flagLines, parseSince } from "../abuse/report.ts";
import { systemClock } from "../clock.ts";
import type { CliCommand } from "./command.ts";
import { UsageError } from "./flags.ts";

export const abuseReportCommand: CliCommand = {
  name: "abuse report",
  section: "Abuse",
  usage: "abuse report [--since 24h] [--json]",
  summary: ["limit-evasion flags raised since (30m, 1h, 2d, ...), newest first, with their evidence"],
  details: [
    "`--since` is a number and a unit (`s`, `m`, `h`, `d`, `w`); the default is the last 24 hours. Each flag lists its id,",
    "time, kind, calls against the threshold in its window, the accounts with their call counts, the keyed addresses and",
    "fingerprints with their counts, the time span of the calls and the action taken. `--json` prints a JSON array of the",
    "rows. Flags past `ABUSE_RETENTION_DAYS` are deleted first. See",
    "[Limit evasion across accounts](acceptable-use.md#limit-evasion-across-accounts).",
  ].join("\n"),
  async run(cli) {
    const config = cli.config();
    const since = cli.flags.since ?? "24h";
    const sinceMs = parseSince(since);
    // Checked before the database opens: a typo is a usage error even while the server holds it.
    if (sinceMs === null) throw new UsageError(`--since must be a number and a unit: 30m, 1h, 2d (got "${cli.flags.since}")`);
    const { db } = await cli.database();
    const flags = await abuseReport(db, systemClock, { sinceMs, retentionDays: config.abuse.retentionDays });
    if (cli.flags.json) cli.out(JSON.stringify(flags.map(flagJson)));
    else if (!flags.length) cli.out(`no limit-evasion flags since ${since} ago`);
    else
      cli.out(
        flags
          .flatMap((flag) => [...flagLines(flag), ""])
          .join("\n")
          .trimEnd(),
      );
  },
};
