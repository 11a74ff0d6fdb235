import { Elysia } from "elysia";
import { notFound } from "../errors.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { looksLikeId } from "../ids.ts";
import { AccountView, CreatedKeyView, CreateKeyBody, ErrorBody, KeyIdParams, KeyList, KeyView } from "./model.ts";
import * as q from "./queries.ts";
import { accountView, createKey, keyView, revokeKey } from "./service.ts";

export function accountRoutes(deps: AuthDeps) {
  const { db } = deps.accounts;
  const keyOf = async (accountId: string, keyId: string) => {
    const key = looksLikeId("key", keyId) ? await q.getKey(db, accountId, keyId) : null;
    if (!key) throw notFound("key");
    return key;
  };
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(deps))
    .get(
      "/account",
      async ({ caller }) => {
        const account = await q.getAccount(db, caller.accountId);
        if (!account) throw notFound("account");
        return accountView(account, caller);
      },
      { response: { 200: AccountView, 401: ErrorBody }, detail: secured({ tags: ["Account"], summary: "The calling key's account, plan, limit and balance" }) },
    )
    .get("/keys", async ({ caller }) => ({ keys: (await q.listKeys(db, caller.accountId)).map(keyView) }), {
      response: { 200: KeyList },
      detail: secured({ tags: ["Account"], summary: "The account's API keys (prefixes only)" }),
    })
    .post(
      "/keys",
      async ({ caller, body, set }) => {
        const created = await createKey(deps.accounts, caller.accountId, body?.name ?? null);
        set.status = 201;
        return { ...keyView(created.key), api_key: created.secret };
      },
      {
        body: CreateKeyBody,
        response: { 201: CreatedKeyView },
        detail: secured({ tags: ["Account"], summary: "Create another key for the account; the key is shown once" }),
      },
    )
    .get("/keys/:key_id", async ({ caller, params }) => keyView(await keyOf(caller.accountId, params.key_id)), {
      params: KeyIdParams,
      response: { 200: KeyView, 404: ErrorBody },
      detail: secured({ tags: ["Account"], summary: "One key" }),
    })
    .delete(
      "/keys/:key_id",
      async ({ caller, params }) => {
        await keyOf(caller.accountId, params.key_id);
        return keyView(await revokeKey(deps.accounts, caller.accountId, params.key_id));
      },
      {
        params: KeyIdParams,
        response: { 200: KeyView, 404: ErrorBody },
        detail: secured({ tags: ["Account"], summary: "Revoke a key; it stops working at once" }),
      },
    );
}
