import type { AccountsContext } from "../accounts/context.ts";
import type { BackgroundWrites } from "../background.ts";
import type { Config } from "../config.ts";
import { FREE_PER_MINUTE } from "../limits/plans.ts";
import type { Logger } from "../log.ts";
import { AbuseDetector } from "./detector.ts";
import { loadHashKey } from "./keyed-hash.ts";
import { MemoryWindows } from "./memory-windows.ts";
import { RedisWindows, UpstashWindows } from "./redis-windows.ts";
import type { WindowStore } from "./window-store.ts";
import { windowSettings } from "./windows.ts";

/** Off the call's path, a count may wait this long for Upstash (the limiter's own deadline is far shorter). */
const UPSTASH_TIMEOUT_MS = 2_000;

/** The detector on the limiter's store: Redis, Upstash, or this process's memory (the embedded default). */
export function createAbuseDetector(
  config: Pick<Config, "abuse" | "rateLimit">,
  deps: { accounts: AccountsContext; log: Logger; background?: BackgroundWrites },
): AbuseDetector {
  const windows = windowSettings(config.abuse.windowsSeconds, FREE_PER_MINUTE, config.abuse.minAccounts);
  let store: WindowStore = new MemoryWindows(windows);
  if (config.rateLimit.redisUrl) store = new RedisWindows(config.rateLimit.redisUrl, windows);
  else if (config.rateLimit.upstash)
    store = new UpstashWindows(config.rateLimit.upstash.url, config.rateLimit.upstash.token, UPSTASH_TIMEOUT_MS, windows);
  return new AbuseDetector(
    store,
    { ...deps, hashKey: () => loadHashKey(deps.accounts.db, config.abuse.hashKey) },
    { action: config.abuse.action, windows, keyPrefix: config.rateLimit.keyPrefix, retentionDays: config.abuse.retentionDays },
  );
}
