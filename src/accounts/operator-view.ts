/**
 * What `accounts show` prints for an operator: the account as the API shows
 * it, its standing (status, reason, since when), every key with its dates
 * (prefixes only: a key's secret is never stored), and the audit trail of
 * status changes, newest first. JSON for scripts, lines for people.
 */
import type { AccountRow, ApiKeyRow } from "./queries.ts";
import { accountView, keyView } from "./service.ts";
import type { AuditRow } from "./status.ts";

export function accountReport(account: AccountRow, keys: ApiKeyRow[], audit: AuditRow[]) {
  const { key_id: _key, key_prefix: _prefix, ...view } = accountView(account);
  return {
    ...view,
    status: account.status,
    status_reason: account.statusReason,
    status_changed_at: account.statusChangedAt?.toISOString() ?? null,
    shared_bucket: account.sharedBucket,
    keys: keys.map((key) => ({ ...keyView(key), expires_at: key.expiresAt?.toISOString() ?? null })),
    audit: audit.map((row) => ({ at: row.createdAt.toISOString(), action: row.action, actor: row.actor, reason: row.reason })),
  };
}

export type AccountReport = ReturnType<typeof accountReport>;

export function accountReportText(report: AccountReport): string[] {
  const standing =
    report.status === "active"
      ? "active"
      : `${report.status} since ${report.status_changed_at ?? "an unknown time"}: ${report.status_reason ?? "no reason given"}`;
  const lines = [
    `account ${report.id} "${report.name}"`,
    `  plan     ${report.plan_label}, ${report.rate_limit_per_minute} calls/min, balance $${report.balance.toFixed(2)}`,
    `  status   ${standing}`,
    ...(report.shared_bucket ? [`  shares   the rate-limit bucket "${report.shared_bucket}" with other accounts`] : []),
    `  created  ${report.created_at}`,
    "",
    `keys (${report.keys.length})`,
  ];
  for (const key of report.keys) {
    const state = key.revoked_at ? `revoked ${key.revoked_at}` : key.expires_at ? `expires ${key.expires_at}` : "active";
    lines.push(`  ${key.id}  ${key.prefix}…  created ${key.created_at}  last used ${key.last_used_at ?? "never"}  ${state}`);
  }
  lines.push("", `audit (${report.audit.length}, newest first)`);
  if (!report.audit.length) lines.push("  no status changes recorded");
  for (const row of report.audit) lines.push(`  ${row.at}  ${row.action.padEnd(9)}  by ${row.actor}${row.reason ? `: ${row.reason}` : ""}`);
  return lines;
}
