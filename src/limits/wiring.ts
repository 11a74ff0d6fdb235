import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { RateLimiter } from "./limiter.ts";
import { MemoryStore } from "./memory-store.ts";
import type { InFlightGauge } from "./peak-load.ts";
import { RedisStore } from "./redis-store.ts";
import type { BucketStore } from "./store.ts";
import { UpstashStore } from "./upstash-store.ts";

/** The limiter on the configured store: Redis, Upstash, or this process's memory. */
export async function createRateLimiter(
  settings: Config["rateLimit"],
  deps: { clock: Clock; log: Logger; load: InFlightGauge },
): Promise<RateLimiter> {
  const fallback = new MemoryStore(deps.clock);
  let store: BucketStore = fallback;
  if (settings.redisUrl) store = new RedisStore(settings.redisUrl);
  else if (settings.upstash) store = new UpstashStore(settings.upstash.url, settings.upstash.token, settings.timeoutMs);
  if (store.init) {
    try {
      await store.init();
    } catch (error) {
      deps.log.warn(`rate limit store not reachable at start; failing ${settings.failMode} until it is`, { store: store.name, error });
    }
  }
  return new RateLimiter(store, fallback, settings, deps);
}
