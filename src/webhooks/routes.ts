/** /v1/webhooks: the account's signing secret, and the deliveries of its webhooks (webhooks/service.ts). */
import { Elysia } from "elysia";
import { ErrorBody } from "../accounts/model.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { listBody } from "../paging.ts";
import {
  DeliveryDetail,
  deliveryDetail,
  DeliveryIdParams,
  DeliveryList,
  DeliveryListQuery,
  deliveryView,
  SecretView,
  secretView,
} from "./model.ts";
import type { Webhooks } from "./service.ts";

const tags = ["Webhooks"];

export function webhookRoutes(auth: AuthDeps, webhooks: Webhooks, now: () => number) {
  return new Elysia({ prefix: "/v1/webhooks" })
    .use(authenticated(auth))
    .get("/secret", async ({ caller }) => secretView(await webhooks.secret(caller.accountId), new Date(now())), {
      response: { 200: SecretView },
      detail: secured({
        tags,
        summary: "The secret your webhooks are signed with (Standard Webhooks' whsec_…), made on first read",
      }),
    })
    .post("/secret/rotate", async ({ caller }) => secretView(await webhooks.rotate(caller.accountId), new Date(now())), {
      response: { 200: SecretView },
      detail: secured({
        tags,
        summary: "A new signing secret; the previous one also signs for 24 hours, so receivers can switch without a gap",
      }),
    })
    .get("/deliveries", async ({ caller, query }) => listBody(await webhooks.list(caller.accountId, query), deliveryView), {
      query: DeliveryListQuery,
      response: { 200: DeliveryList },
      detail: secured({ tags, summary: "The account's webhook deliveries, newest first: status, attempts, latency" }),
    })
    .get(
      "/deliveries/:delivery_id",
      async ({ caller, params }) => {
        const { delivery, attempts } = await webhooks.get(caller.accountId, params.delivery_id);
        return deliveryDetail(delivery, attempts);
      },
      {
        params: DeliveryIdParams,
        response: { 200: DeliveryDetail, 404: ErrorBody },
        detail: secured({ tags, summary: "A delivery with its body and every attempt" }),
      },
    )
    .post(
      "/deliveries/:delivery_id/redeliver",
      async ({ caller, params, set }) => {
        set.status = 202;
        return deliveryView(await webhooks.redeliver(caller.accountId, params.delivery_id));
      },
      {
        params: DeliveryIdParams,
        response: { 202: DeliveryList.properties.data.items, 404: ErrorBody, 409: ErrorBody },
        detail: secured({
          tags,
          summary: "Deliver a message again (same webhook-id), tried for another 24 hours; a delivery still being tried is a 409",
        }),
      },
    );
}
