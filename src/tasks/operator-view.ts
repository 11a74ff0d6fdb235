/**
 * What `tasks list` and `tasks show` print for an operator: the task as the
 * API shows it, with whose it is (account, key, batch, monitor), how long it
 * waited and ran, and its result summed up (its size, sources and tokens, the
 * start of its answer) rather than poured out. JSON for scripts, lines for
 * people.
 */
import type { TaskRow } from "./queries.ts";
import { taskView } from "./view.ts";

/** How much of an answer `tasks show` quotes. */
const QUOTED = 200;

export function taskReport(task: TaskRow) {
  return {
    ...taskView(task),
    account_id: task.accountId,
    key_id: task.keyId,
    batch_id: task.batchId,
    monitor_id: task.monitorId,
  };
}

export type TaskReport = ReturnType<typeof taskReport>;

const seconds = (from: string | null, to: string | null) =>
  from && to ? `${((Date.parse(to) - Date.parse(from)) / 1000).toFixed(1)} s` : null;

/** One line of `tasks list`: id, status, what it runs, whose, when, how many attempts. */
export function taskLine(report: TaskReport): string {
  const what = report.endpoint ? `${report.kind} ${report.endpoint}` : report.kind;
  return `${report.id}  ${report.status.padEnd(9)}  ${what.padEnd(20)}  account ${report.account_id}  created ${report.created_at}  attempts ${report.attempts}`;
}

export function taskReportText(report: TaskReport): string[] {
  const waited = seconds(report.created_at, report.started_at);
  const ran = seconds(report.started_at, report.finished_at);
  const lines = [
    `task ${report.id}: ${report.status}`,
    `  kind      ${report.endpoint ? `${report.kind} ${report.endpoint}` : report.kind}`,
    `  account   ${report.account_id}${report.key_id ? ` (key ${report.key_id})` : " (a dashboard session)"}`,
    ...(report.batch_id ? [`  batch     ${report.batch_id}`] : []),
    ...(report.monitor_id ? [`  monitor   ${report.monitor_id}`] : []),
    `  attempts  ${report.attempts}`,
    `  created   ${report.created_at}`,
    `  started   ${report.started_at ?? "not yet"}${waited ? ` (waited ${waited})` : ""}`,
    `  finished  ${report.finished_at ?? "not yet"}${ran ? ` (ran ${ran})` : ""}`,
    ...(report.metadata ? [`  metadata  ${JSON.stringify(report.metadata)}`] : []),
    ...(report.webhook ? [`  webhook   ${report.webhook.url}`] : []),
  ];
  if (report.error) lines.push(`  error     ${report.error.code}: ${report.error.message}`);
  if (report.result) {
    const { response, context, info } = report.result;
    const text = typeof response === "string" ? response : JSON.stringify(response);
    const tokens = (info as { token_usage?: unknown }).token_usage;
    lines.push(
      `  result    ${text.length} characters, ${context.length} sources${typeof tokens === "number" ? `, ${tokens} tokens` : ""}`,
      `            ${JSON.stringify(text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text)}`,
    );
  }
  return lines;
}
