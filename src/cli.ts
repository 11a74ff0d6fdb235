/**
 * The operator's CLI: `npm run cli -- <command>`. It opens the same database
 * the server uses (Postgres beside a running server, or the embedded one
 * when no server holds it) and calls the same verbs as the routes.
 */
import { parseArgs } from "node:util";
import { openDatabase, type DatabaseHandle } from "../db/client.ts";
import { abuseReport, flagJson, flagLines, parseSince } from "./abuse/report.ts";
import { EmbeddedDatabaseBusy } from "../db/embedded-lock.ts";
import { migrateDatabase } from "../db/migrate.ts";
import * as q from "./accounts/queries.ts";
import { accountView, addCredit, createAccount, createKey, keyView, revokeKey } from "./accounts/service.ts";
import { systemClock } from "./clock.ts";
import { ConfigError, describeEnvironment, loadConfig, type Config } from "./config.ts";
import { KEY_ENV } from "./accounts/keys.ts";
import { indexUrls, progressBar, sitemapUrls } from "./contents/bulk-index.ts";
import { systemResolver } from "./contents/egress/resolver.ts";
import { SafeFetch } from "./contents/egress/safe-fetch.ts";
import { ExtractionPool } from "./contents/extraction-pool.ts";
import { PageReads } from "./contents/page-reads.ts";
import { rotateKey } from "./accounts/rotation.ts";
import { setPassword } from "./accounts/sign-in.ts";
import { accountReport, accountReportText } from "./accounts/operator-view.ts";
import { auditOf, changeStatus, type StatusAction } from "./accounts/status.ts";
import { mintSignInLink, signInLinkUrl } from "./accounts/sign-in-links.ts";
import { ServiceError } from "./errors.ts";
import { localBaseUrl } from "./http/base-url.ts";
import { createLogger } from "./log.ts";

const USAGE = `Usage: npm run cli -- <command> [options]

Accounts and keys
  accounts create --name NAME [--credit DOLLARS] [--limit PER_MIN] [--json]
                                     create an account and its first key (--limit: enterprise, ${"calls/min"} >= 5000)
  accounts list [--json]             list accounts with plan and balance
  accounts password --account ID --email EMAIL
                                     set the dashboard sign-in; the password is read from standard input
  accounts suspend --account ID --reason TEXT
                                     refuse the account's keys and sessions (403, with the reason) and end its
                                     running calls; its published endpoints refuse calls
  accounts reinstate --account ID [--reason TEXT]
                                     make a suspended or banned account active again, at once
  accounts ban --account ID --reason TEXT
                                     as suspend, for good (reinstate still undoes it)
  accounts show --account ID [--json]
                                     the account, its status, keys and audit trail (who, when, what, why)
  accounts sign-in-link --account ID print a one-time link (15 minutes) where the owner sets
                                     the dashboard email and password
  keys create --account ID [--name NAME] [--expires-in-days N] [--json]
                                     create another key for an account (by default it never expires)
  keys rotate KEY_ID [--grace-seconds N] [--json]
                                     make a successor key; the old one works for N more seconds (default 86400)
  keys list --account ID [--json]    list an account's keys (prefixes only)
  keys revoke KEY_ID                 revoke a key at once
  credit add --account ID --amount DOLLARS
                                     add credit (a positive balance is the Pro plan)

Abuse
  abuse report [--since 24h] [--json]
                                     limit-evasion flags raised since (30m, 1h, 2d, ...), newest first, with their evidence

Pages
  index URL... [--sitemap URL] [--concurrency N] [--max-age SECONDS] [--limit N]
                                     read pages into the page cache and the local index

Database
  db migrate                         apply pending migrations

Help
  config                             list the environment variables with defaults
  help                               this text
`;

class UsageError extends Error {}

const out = (text: string) => process.stdout.write(`${text}\n`);

function number(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new UsageError(`${flag} must be a number (got "${value}")`);
  return n;
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

async function openForCli(config: Config): Promise<DatabaseHandle> {
  const handle = await openDatabase(
    config.database.url
      ? { kind: "postgres", url: config.database.url, poolMax: 2 }
      : { kind: "pglite", dataDir: config.dataDir, role: "cli" },
  );
  await migrateDatabase(handle, config.database.url);
  return handle;
}

function busyMessage(error: EmbeddedDatabaseBusy, port: number): string {
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

/** "account not found" names the id the operator typed. */
const namedAccount = (accountId: string) => (error: unknown) => {
  if (error instanceof ServiceError && error.code === "not_found") throw new ServiceError("not_found", `account ${accountId} not found`);
  throw error;
};

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      email: { type: "string" },
      credit: { type: "string" },
      limit: { type: "string" },
      account: { type: "string" },
      amount: { type: "string" },
      reason: { type: "string" },
      json: { type: "boolean", default: false },
      sitemap: { type: "string" },
      concurrency: { type: "string" },
      "max-age": { type: "string" },
      since: { type: "string" },
      "expires-in-days": { type: "string" },
      "grace-seconds": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [group, action, ...rest] = positionals;
  const command = `${group ?? "help"} ${action ?? ""}`.trim();
  if (values.help || command === "help") {
    out(USAGE);
    return 0;
  }
  if (command === "config") {
    for (const v of describeEnvironment())
      out(`${v.name}${v.default !== undefined ? ` (default ${JSON.stringify(v.default)})` : ""}\n    ${v.description}`);
    return 0;
  }
  const known = [
    "accounts create",
    "accounts list",
    "accounts password",
    "accounts suspend",
    "accounts reinstate",
    "accounts ban",
    "accounts show",
    "accounts sign-in-link",
    "keys create",
    "keys list",
    "keys revoke",
    "keys rotate",
    "credit add",
    "abuse report",
    "db migrate",
  ];
  const indexing = group === "index";
  if (!known.includes(command) && !indexing) throw new UsageError(`unknown command "${command}"`);

  const config = loadConfig(process.env);
  const sinceMs = command === "abuse report" ? parseSince(values.since ?? "24h") : null;
  if (command === "abuse report" && sinceMs === null)
    throw new UsageError(`--since must be a number and a unit: 30m, 1h, 2d (got "${values.since}")`);
  const handle = await openForCli(config);
  const ctx = { db: handle.db, clock: systemClock };
  try {
    if (indexing)
      return await runIndex(
        config,
        handle,
        [action, ...rest].filter((u): u is string => Boolean(u)),
        values,
      );
    switch (command) {
      case "db migrate":
        out(`migrations applied (${handle.description})`);
        break;
      case "accounts create": {
        const created = await createAccount(ctx, {
          name: required(values.name, "--name"),
          creditDollars: number(values.credit, "--credit"),
          customRateLimit: number(values.limit, "--limit") ?? null,
        });
        if (values.json) out(JSON.stringify({ account_id: created.account.id, api_key: created.secret }));
        else {
          const view = accountView(created.account);
          out(
            `account ${view.id} "${view.name}": plan ${view.plan_label}, ${view.rate_limit_per_minute} calls/min, balance $${view.balance}`,
          );
          out(`API key (shown once, store it now): ${created.secret}`);
        }
        break;
      }
      case "accounts password": {
        // From standard input, so the password is in no argument list or shell history.
        const password = (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "");
        const account = await setPassword(handle.db, required(values.account, "--account"), required(values.email, "--email"), password);
        out(`account ${account.id} can now sign in to the dashboard as ${account.email}`);
        break;
      }
      case "accounts list": {
        const rows = (await q.listAccounts(handle.db)).map((a) => accountView(a));
        if (values.json) out(JSON.stringify(rows));
        else
          for (const a of rows)
            out(
              `${a.id}  ${a.plan.padEnd(10)} ${String(a.rate_limit_per_minute).padStart(7)}/min  $${a.balance.toFixed(2).padStart(10)}  ${a.name}`,
            );
        break;
      }
      case "accounts suspend":
      case "accounts reinstate":
      case "accounts ban": {
        const accountId = required(values.account, "--account");
        const action = command.slice("accounts ".length) as StatusAction;
        if (action !== "reinstate" && !values.reason?.trim())
          throw new UsageError(`--reason is required to ${action}: the account's callers are shown it`);
        // The audit names who acted: the operator's login, as far as the shell knows it.
        const actor = `cli:${process.env.USER || "operator"}`;
        const account = await changeStatus(ctx, { accountId, action, reason: values.reason ?? null, actor }).catch(namedAccount(accountId));
        out(
          `account ${account.id} is now ${account.status}${account.statusReason ? ` (${account.statusReason})` : ""}; recorded as ${action} by ${actor}`,
        );
        break;
      }
      case "accounts show": {
        const accountId = required(values.account, "--account");
        const account = await q.getAccount(handle.db, accountId);
        if (!account) throw new ServiceError("not_found", `account ${accountId} not found`);
        const report = accountReport(account, await q.listKeys(handle.db, accountId), await auditOf(handle.db, accountId));
        out(values.json ? JSON.stringify(report) : accountReportText(report).join("\n"));
        break;
      }
      case "keys create": {
        const created = await createKey(ctx, required(values.account, "--account"), values.name ?? null, {
          expiresInDays: number(values["expires-in-days"], "--expires-in-days"),
        });
        const expires = created.key.expiresAt?.toISOString() ?? null;
        if (values.json)
          out(JSON.stringify({ account_id: created.key.accountId, key_id: created.key.id, api_key: created.secret, expires_at: expires }));
        else out(`key ${created.key.id}${expires ? ` (expires ${expires})` : ""} (shown once, store it now): ${created.secret}`);
        break;
      }
      case "keys rotate": {
        const keyId = required(rest[0], "KEY_ID");
        const owner = await q.findKeyOwner(handle.db, keyId);
        if (!owner) throw new ServiceError("not_found", `key ${keyId} not found`);
        const { successor, previous } = await rotateKey(ctx, owner, keyId, {
          graceSeconds: number(values["grace-seconds"], "--grace-seconds"),
        });
        const until = previous.expiresAt!.toISOString();
        const expires = successor.key.expiresAt?.toISOString() ?? null;
        if (values.json)
          out(
            JSON.stringify({
              account_id: owner,
              key_id: successor.key.id,
              api_key: successor.secret,
              expires_at: expires,
              rotated_from: previous.id,
              old_key_works_until: until,
            }),
          );
        else {
          out(`key ${successor.key.id} replaces ${previous.id}${expires ? ` (expires ${expires})` : ""}`);
          out(`the old key works until ${until}`);
          out(`new API key (shown once, store it now): ${successor.secret}`);
        }
        break;
      }
      case "accounts sign-in-link": {
        const accountId = required(values.account, "--account");
        const link = await mintSignInLink(ctx, accountId);
        const base = config.publicBaseUrl ?? localBaseUrl(config.host, config.port);
        out(`Open this link within 15 minutes to set the dashboard email and password of ${accountId} (it works once):`);
        out(`  ${signInLinkUrl(base, link.token)}`);
        break;
      }
      case "keys list": {
        const rows = (await q.listKeys(handle.db, required(values.account, "--account"))).map(keyView);
        if (values.json) out(JSON.stringify(rows));
        else for (const k of rows) out(`${k.id}  ${k.prefix}…  ${keyState(k)}  last used ${k.last_used_at ?? "never"}`);
        break;
      }
      case "keys revoke": {
        const keyId = required(rest[0] ?? values.name, "KEY_ID");
        const owner = await q.findKeyOwner(handle.db, keyId);
        if (!owner) throw new ServiceError("not_found", `key ${keyId} not found`);
        const key = await revokeKey(ctx, owner, keyId);
        out(`key ${key.id} revoked at ${key.revokedAt?.toISOString()}`);
        break;
      }
      case "abuse report": {
        const flags = await abuseReport(handle.db, systemClock, { sinceMs: sinceMs!, retentionDays: config.abuse.retentionDays });
        if (values.json) out(JSON.stringify(flags.map(flagJson)));
        else if (!flags.length) out(`no limit-evasion flags since ${values.since ?? "24h"} ago`);
        else
          out(
            flags
              .flatMap((flag) => [...flagLines(flag), ""])
              .join("\n")
              .trimEnd(),
          );
        break;
      }
      case "credit add": {
        const account = await addCredit(
          ctx,
          required(values.account, "--account"),
          number(required(values.amount, "--amount"), "--amount")!,
        );
        const view = accountView(account);
        out(`account ${view.id}: balance $${view.balance.toFixed(2)}, plan ${view.plan_label} (${view.rate_limit_per_minute} calls/min)`);
        break;
      }
    }
  } finally {
    await handle.close();
  }
  return 0;
}

function keyState(key: { revoked_at: string | null; expires_at: string | null; replaced_by: string | null }): string {
  if (key.revoked_at) return `revoked ${key.revoked_at}`;
  const end = key.expires_at ? `${Date.parse(key.expires_at) <= Date.now() ? "expired" : "expires"} ${key.expires_at}` : "active";
  return key.replaced_by ? `rotated to ${key.replaced_by}, ${end}` : end;
}

async function runIndex(
  config: Config,
  handle: DatabaseHandle,
  urls: string[],
  values: { sitemap?: string; concurrency?: string; "max-age"?: string; limit?: string; json?: boolean },
): Promise<number> {
  const log = createLogger({ level: "warn", sink: (line) => process.stderr.write(`${line}\n`) });
  const fetcher = new SafeFetch(config.fetch, { resolver: systemResolver, log });
  const extractor = new ExtractionPool(config.extraction, log);
  const ctx = {
    db: handle.db,
    fetcher,
    clock: systemClock,
    log,
    defaultMaxAgeSeconds: config.contentsMaxAgeSeconds,
    reads: new PageReads(),
    extractor,
  };
  const limit = number(values.limit, "--limit") ?? 1_000;
  if (values.sitemap) urls.push(...(await sitemapUrls(fetcher, values.sitemap, { limit })));
  if (urls.length === 0) throw new UsageError("give at least one URL or --sitemap URL");
  const concurrency = number(values.concurrency, "--concurrency") ?? 8;
  if (concurrency < 1 || concurrency > 64) throw new UsageError("--concurrency must be from 1 to 64");
  const tty = process.stderr.isTTY;
  const summary = await indexUrls(ctx, urls, {
    concurrency,
    maxAgeSeconds: number(values["max-age"], "--max-age"),
    onProgress: (p) => {
      if (tty) process.stderr.write(`\r${progressBar(p)}`);
      else if (p.done === p.total || p.done % 25 === 0) process.stderr.write(`${progressBar(p)}\n`);
    },
  });
  await extractor.close();
  if (tty) process.stderr.write("\n");
  for (const failure of summary.failures) process.stderr.write(`failed: ${failure.url} (${failure.error}: ${failure.detail})\n`);
  const line = { total: summary.total, indexed: summary.indexed, cached: summary.cached, failed: summary.failed };
  out(
    values.json ? JSON.stringify(line) : `indexed ${line.indexed}, already cached ${line.cached}, failed ${line.failed} of ${line.total}`,
  );
  return summary.failed === summary.total ? 1 : 0;
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof EmbeddedDatabaseBusy) {
    process.stderr.write(`${busyMessage(error, loadConfig(process.env).port)}\n`);
    process.exitCode = 3;
  } else if (
    error instanceof UsageError ||
    (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))
  ) {
    process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof ConfigError || error instanceof ServiceError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
