import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { requestContext } from "../http/request-context.ts";
import { createLogger } from "../log.ts";
import { drainGate, type DrainState } from "./drain.ts";

function appIn(state: DrainState) {
  return new Elysia()
    .use(requestContext(createLogger({ level: "silent" })))
    .use(drainGate(state))
    .get("/v1/account", () => "served")
    .get("/readyz", () => "ready?");
}

const get = (app: ReturnType<typeof appIn>, path: string) => app.handle(new Request(`http://local${path}`));

describe("the drain gate", () => {
  test("serving: calls are answered and keep their connections", async () => {
    const response = await get(appIn({ draining: () => false, refusing: () => false }), "/v1/account");
    expect(response.status).toBe(200);
    expect(response.headers.get("connection")).toBeNull();
  });

  test("the grace: calls are still answered, each closing its connection", async () => {
    const response = await get(appIn({ draining: () => true, refusing: () => false }), "/v1/account");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("served");
    expect(response.headers.get("connection")).toBe("close");
  });

  test("past the grace: a new call is a 503 draining with Retry-After; /readyz and /healthz still answer", async () => {
    const app = appIn({ draining: () => true, refusing: () => true });
    const refused = await get(app, "/v1/account");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ detail: "this instance is shutting down, try again in 1 second", error: "draining" });
    expect((await get(app, "/readyz")).status).toBe(200);
  });
});
