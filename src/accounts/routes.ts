/** /v1/account and /v1/keys: the caller's account and its API keys. */
import { Elysia } from "elysia";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import {
  AccountView,
  CreatedKeyView,
  CreateKeyBody,
  ErrorBody,
  KeyIdParams,
  KeyList,
  KeyView,
  RotatedKeyView,
  RotateKeyBody,
} from "./model.ts";
import { rotateKey } from "./rotation.ts";
import { accountView, createKey, getAccount, getKey, keyView, listKeys, revokeKey } from "./service.ts";
import type { AccountsContext } from "./context.ts";

const tags = ["Account"];

export function accountRoutes(auth: AuthDeps, ctx: AccountsContext) {
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth))
    .get("/account", async ({ caller }) => accountView(await getAccount(ctx, caller.accountId), caller), {
      response: { 200: AccountView, 401: ErrorBody },
      detail: secured({ tags, summary: "The calling key's account, plan, limit and balance" }),
    })
    .get("/keys", async ({ caller }) => ({ keys: (await listKeys(ctx, caller.accountId)).map(keyView) }), {
      response: { 200: KeyList },
      detail: secured({ tags, summary: "The account's API keys (prefixes only)" }),
    })
    .post(
      "/keys",
      async ({ caller, body, set }) => {
        const created = await createKey(ctx, caller.accountId, body?.name ?? null, { expiresInDays: body?.expires_in_days });
        set.status = 201;
        return { ...keyView(created.key), api_key: created.secret };
      },
      {
        body: CreateKeyBody,
        response: { 201: CreatedKeyView },
        detail: secured({ tags, summary: "Create another key for the account, optionally expiring; the key is shown once" }),
      },
    )
    .post(
      "/keys/:key_id/rotate",
      async ({ caller, params, body, set }) => {
        const { successor, previous } = await rotateKey(ctx, caller.accountId, params.key_id, { graceSeconds: body?.grace_seconds });
        set.status = 201;
        return { ...keyView(successor.key), api_key: successor.secret, rotated_from: keyView(previous) };
      },
      {
        params: KeyIdParams,
        body: RotateKeyBody,
        response: { 201: RotatedKeyView, 404: ErrorBody, 409: ErrorBody },
        detail: secured({
          tags,
          summary: "Rotate a key: a successor (shown once) with the same name and lifetime; the old key works for a grace period",
        }),
      },
    )
    .get("/keys/:key_id", async ({ caller, params }) => keyView(await getKey(ctx, caller.accountId, params.key_id)), {
      params: KeyIdParams,
      response: { 200: KeyView, 404: ErrorBody },
      detail: secured({ tags, summary: "One key" }),
    })
    .delete("/keys/:key_id", async ({ caller, params }) => keyView(await revokeKey(ctx, caller.accountId, params.key_id)), {
      params: KeyIdParams,
      response: { 200: KeyView, 404: ErrorBody },
      detail: secured({ tags, summary: "Revoke a key; it stops working at once" }),
    });
}
