/** An account's API keys: create, rotate with a grace period, list, revoke. */
import * as q from "../accounts/queries.ts";
import { rotateKey } from "../accounts/rotation.ts";
import { createKey, keyView, revokeKey } from "../accounts/service.ts";
import { ServiceError } from "../errors.ts";
import type { CliCommand } from "./command.ts";
import { number, required } from "./flags.ts";

export const createKeyCommand: CliCommand = {
  name: "keys create",
  section: "Accounts and keys",
  usage: "keys create --account ID [--name NAME] [--expires-in-days N] [--json]",
  summary: ["create another key for an account (by default it never expires)"],
  details: [
    "The secret is shown this once. `--expires-in-days` is a whole number from 1 to 3650.",
    "`--json` prints `{account_id, key_id, api_key, expires_at}`.",
  ].join("\n"),
  async run(cli) {
    const created = await createKey(await cli.accounts(), required(cli.flags.account, "--account"), cli.flags.name ?? null, {
      expiresInDays: number(cli.flags["expires-in-days"], "--expires-in-days"),
    });
    const expires = created.key.expiresAt?.toISOString() ?? null;
    if (cli.flags.json)
      cli.out(JSON.stringify({ account_id: created.key.accountId, key_id: created.key.id, api_key: created.secret, expires_at: expires }));
    else cli.out(`key ${created.key.id}${expires ? ` (expires ${expires})` : ""} (shown once, store it now): ${created.secret}`);
  },
};

export const rotateKeyCommand: CliCommand = {
  name: "keys rotate",
  section: "Accounts and keys",
  usage: "keys rotate KEY_ID [--grace-seconds N] [--json]",
  summary: ["make a successor key; the old one works for N more seconds (default 86400)"],
  details: [
    "`--grace-seconds` is 0 to 2592000 (30 days); `0` stops the old key at once. The successor keeps the old key's name and",
    "lifetime. A revoked, expired or already rotated key cannot be rotated (exit code 1, saying which).",
    "`--json` prints `{account_id, key_id, api_key, expires_at, rotated_from, old_key_works_until}`.",
    "See [API keys: expiry and rotation](../api/calling.md#api-keys-expiry-and-rotation).",
  ].join("\n"),
  async run(cli) {
    const ctx = await cli.accounts();
    const keyId = required(cli.args[0], "KEY_ID");
    const owner = await q.findKeyOwner(ctx.db, keyId);
    if (!owner) throw new ServiceError("not_found", `key ${keyId} not found`);
    const { successor, previous } = await rotateKey(ctx, owner, keyId, {
      graceSeconds: number(cli.flags["grace-seconds"], "--grace-seconds"),
    });
    const until = previous.expiresAt!.toISOString();
    const expires = successor.key.expiresAt?.toISOString() ?? null;
    if (cli.flags.json)
      cli.out(
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
      cli.out(`key ${successor.key.id} replaces ${previous.id}${expires ? ` (expires ${expires})` : ""}`);
      cli.out(`the old key works until ${until}`);
      cli.out(`new API key (shown once, store it now): ${successor.secret}`);
    }
  },
};

export const listKeysCommand: CliCommand = {
  name: "keys list",
  section: "Accounts and keys",
  usage: "keys list --account ID [--json]",
  summary: ["list an account's keys (prefixes only)"],
  details:
    "One line per key: id, prefix, state (active, expires, expired, revoked, rotated to its successor) and when it was last used. `--json` prints the keys with `expires_at` and `replaced_by`.",
  async run(cli) {
    const { db } = await cli.database();
    const rows = (await q.listKeys(db, required(cli.flags.account, "--account"))).map(keyView);
    if (cli.flags.json) cli.out(JSON.stringify(rows));
    else for (const k of rows) cli.out(`${k.id}  ${k.prefix}…  ${keyState(k)}  last used ${k.last_used_at ?? "never"}`);
  },
};

export const revokeKeyCommand: CliCommand = {
  name: "keys revoke",
  section: "Accounts and keys",
  usage: "keys revoke KEY_ID",
  summary: ["revoke a key at once"],
  details: "An unknown key is `error: key <id> not found`, exit code 1.",
  async run(cli) {
    const ctx = await cli.accounts();
    const keyId = required(cli.args[0] ?? cli.flags.name, "KEY_ID");
    const owner = await q.findKeyOwner(ctx.db, keyId);
    if (!owner) throw new ServiceError("not_found", `key ${keyId} not found`);
    const key = await revokeKey(ctx, owner, keyId);
    cli.out(`key ${key.id} revoked at ${key.revokedAt?.toISOString()}`);
  },
};

function keyState(key: { revoked_at: string | null; expires_at: string | null; replaced_by: string | null }): string {
  if (key.revoked_at) return `revoked ${key.revoked_at}`;
  const end = key.expires_at ? `${Date.parse(key.expires_at) <= Date.now() ? "expired" : "expires"} ${key.expires_at}` : "active";
  return key.replaced_by ? `rotated to ${key.replaced_by}, ${end}` : end;
}
