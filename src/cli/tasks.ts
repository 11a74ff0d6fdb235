/** Tasks, for the operator: the newest of every account (or one), and one task with its timings, error and result. */
import { ServiceError } from "../errors.ts";
import { TASK_STATUSES, type TaskStatus } from "../tasks/model.ts";
import { taskLine, taskReport, taskReportText } from "../tasks/operator-view.ts";
import * as q from "../tasks/queries.ts";
import type { CliCommand } from "./command.ts";
import { number, required, UsageError } from "./flags.ts";

/** The most tasks `tasks list` prints. */
const LIST_MAX = 1_000;

export const listTasksCommand: CliCommand = {
  name: "tasks list",
  section: "Tasks",
  usage: "tasks list [--account ID] [--status S] [--limit N] [--json]",
  summary: ["the newest tasks of every account, or of one, by status (default 20)"],
  details: [
    "One line per task, newest first: id, status, kind (with the endpoint's stub), account, when it was created and how",
    `many times a worker began it. \`--status\` is one of ${TASK_STATUSES.map((s) => `\`${s}\``).join(", ")}; \`--limit\` is a whole`,
    `number from 1 to ${LIST_MAX}. \`--json\` prints a JSON array of the tasks as \`tasks show --json\` prints one. See [Tasks](../api/tasks.md).`,
  ].join("\n"),
  async run(cli) {
    const status = cli.flags.status;
    // Checked before the database opens: a typo is a usage error even while the server holds it.
    if (status !== undefined && !TASK_STATUSES.includes(status as TaskStatus))
      throw new UsageError(`--status must be one of ${TASK_STATUSES.join(", ")} (got "${status}")`);
    const limit = number(cli.flags.limit, "--limit") ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX)
      throw new UsageError(`--limit must be a whole number from 1 to ${LIST_MAX} (got "${cli.flags.limit}")`);
    const { db } = await cli.database();
    const rows = await q.operatorTasks(db, { accountId: cli.flags.account, status: status as TaskStatus | undefined, limit });
    const reports = rows.map(taskReport);
    if (cli.flags.json) cli.out(JSON.stringify(reports));
    else if (!reports.length) cli.out("no tasks");
    else for (const report of reports) cli.out(taskLine(report));
  },
};

export const showTaskCommand: CliCommand = {
  name: "tasks show",
  section: "Tasks",
  usage: "tasks show --task ID [--json]",
  summary: ["a task: status, kind, account, attempts, timings, error and its result summed up"],
  details: [
    "Prints the task's status, what it runs, whose it is (account and key, batch or monitor), its attempts, when it was",
    "created, started and finished (with how long it waited and ran), its metadata and webhook, its error, and for a",
    "succeeded task the result's size, sources and tokens with the start of its answer. `--json` prints the task as",
    "`GET /v1/tasks/{task_id}` answers it (the whole result), with `account_id`, `key_id`, `batch_id` and `monitor_id`.",
    "An unknown task is `error: task <id> not found`, exit code 1.",
  ].join("\n"),
  async run(cli) {
    const taskId = required(cli.flags.task, "--task");
    const { db } = await cli.database();
    const task = await q.taskById(db, taskId);
    if (!task) throw new ServiceError("not_found", `task ${taskId} not found`);
    const report = taskReport(task);
    cli.out(cli.flags.json ? JSON.stringify(report) : taskReportText(report).join("\n"));
  },
};
