import { Elysia, t } from "elysia";
import type { DatabaseHandle } from "../../db/client.ts";
import type { RateLimiter } from "../limits/limiter.ts";
import type { QueueDepth } from "../research/run/queue.ts";

const READY_TIMEOUT_MS = 2_000;

const Readiness = t.Object({
  status: t.Union([t.Literal("ready"), t.Literal("not_ready")]),
  database: t.Object({ kind: t.String(), ok: t.Boolean() }),
  rate_limit_store: t.Object({ store: t.String(), healthy: t.Boolean(), fail_mode: t.String(), outage_since: t.Nullable(t.String()) }),
  draining: t.Boolean(),
  runs: t.Object(
    {
      running: t.Integer({ minimum: 0, description: "Research runs executing now." }),
      queued: t.Integer({ minimum: 0, description: "Research runs waiting for a slot." }),
      capacity: t.Integer({ minimum: 1, description: "Runs that may execute at once (RUN_CONCURRENCY)." }),
      queue_max: t.Integer({
        minimum: 0,
        description: "Runs that may wait (RUN_QUEUE_MAX); beyond it a run is refused with 503 queue_full.",
      }),
    },
    { description: "This instance's research runs. A full queue refuses runs but does not make the instance unready." },
  ),
});

/** The health probes: a balancer asks them every few seconds, so they are counted in the metrics but never traced. */
export const PROBE_PATHS = ["/healthz", "/readyz"] as const;

/**
 * /healthz: the process answers. /readyz: it can serve, meaning the database
 * answers, and the limiter can admit (a store outage in closed mode cannot).
 * While draining for shutdown it reports not ready, so the proxy stops sending.
 * It also says how busy the research runs are; load alone never makes an
 * instance unready (every instance would drop out together at peak).
 */
export function opsRoutes(deps: {
  database: DatabaseHandle;
  limiter: RateLimiter;
  runs: { depth(): QueueDepth };
  draining: () => boolean;
}) {
  return new Elysia()
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: { 200: t.Object({ status: t.Literal("ok") }) },
      detail: { tags: ["Operations"], summary: "The process is up" },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        let databaseOk = true;
        try {
          await deps.database.ping(AbortSignal.timeout(READY_TIMEOUT_MS));
        } catch {
          databaseOk = false;
        }
        const limiter = deps.limiter.status();
        const limiterOk = limiter.healthy || limiter.failMode === "open";
        const ready = databaseOk && limiterOk && !deps.draining();
        const runs = deps.runs.depth();
        set.status = ready ? 200 : 503;
        return {
          status: ready ? ("ready" as const) : ("not_ready" as const),
          database: { kind: deps.database.kind, ok: databaseOk },
          rate_limit_store: {
            store: limiter.store,
            healthy: limiter.healthy,
            fail_mode: limiter.failMode,
            outage_since: limiter.outageSince,
          },
          draining: deps.draining(),
          runs: { running: runs.running, queued: runs.queued, capacity: runs.capacity, queue_max: runs.queueMax },
        };
      },
      {
        response: { 200: Readiness, 503: Readiness },
        detail: { tags: ["Operations"], summary: "The database answers and the limiter can admit" },
      },
    );
}
