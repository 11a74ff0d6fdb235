import { Redis } from "@upstash/redis";
import { decisionOf, type BucketPolicy, type Decision, type Grant } from "./bucket.ts";
import { grantFromReply, isNoScript, scriptArgs, TOKEN_BUCKET_LUA, tokenBucketSha } from "./redis-script.ts";
import type { BucketStore } from "./store.ts";

/**
 * Buckets in Upstash Redis through its REST API (`@upstash/redis`), with the
 * same script as RedisStore: one HTTPS request per check or per lease. The client's own
 * retries (with backoff) are off: the limiter has a short deadline of its own.
 */
export class UpstashStore implements BucketStore {
  readonly name = "upstash" as const;
  private readonly redis: Redis;

  constructor(url: string, token: string, timeoutMs: number) {
    this.redis = new Redis({
      url,
      token,
      retry: false,
      enableTelemetry: false,
      automaticDeserialization: false,
      signal: () => AbortSignal.timeout(timeoutMs),
    });
  }

  async init(): Promise<void> {
    await this.redis.scriptLoad(TOKEN_BUCKET_LUA);
  }

  async take(key: string, policy: BucketPolicy): Promise<Decision> {
    return decisionOf(await this.lease(key, policy, 1), policy);
  }

  async lease(key: string, policy: BucketPolicy, want: number): Promise<Grant> {
    const args = scriptArgs(policy, want);
    try {
      return grantFromReply(await this.redis.evalsha(await tokenBucketSha(), [key], args));
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return grantFromReply(await this.redis.eval(TOKEN_BUCKET_LUA, [key], args));
    }
  }

  async close(): Promise<void> {}
}
