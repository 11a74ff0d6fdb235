import { decisionOf, type BucketPolicy, type Decision, type Grant } from "./bucket.ts";
import { UpstashConnection } from "./redis-connection.ts";
import { grantFromReply, scriptArgs, tokenBucketScript } from "./redis-script.ts";
import type { BucketStore } from "./store.ts";

/**
 * Buckets in Upstash Redis through its REST API (`@upstash/redis`), with the
 * same script as RedisStore: one HTTPS request per check or per lease. The client's own
 * retries (with backoff) are off: the limiter has a short deadline of its own.
 */
export class UpstashStore implements BucketStore {
  readonly name = "upstash" as const;
  private readonly connection: UpstashConnection;

  constructor(url: string, token: string, timeoutMs: number) {
    this.connection = new UpstashConnection(url, token, timeoutMs);
  }

  async init(): Promise<void> {
    await this.connection.load(tokenBucketScript);
  }

  async take(key: string, policy: BucketPolicy): Promise<Decision> {
    return decisionOf(await this.lease(key, policy, 1), policy);
  }

  async lease(key: string, policy: BucketPolicy, want: number): Promise<Grant> {
    return grantFromReply(await this.connection.run(tokenBucketScript, [key], scriptArgs(policy, want)));
  }

  async close(): Promise<void> {}
}
