import { decisionOf, type BucketPolicy, type Decision, type Grant } from "./bucket.ts";
import { RespConnection } from "./redis-connection.ts";
import { grantFromReply, scriptArgs, tokenBucketScript } from "./redis-script.ts";
import type { BucketStore } from "./store.ts";

/**
 * Buckets in Redis over RESP with Bun's built-in client. One EVALSHA per
 * check or per lease; EVAL only when Redis has lost the script (restart, SCRIPT FLUSH).
 * No offline queue: while Redis is away a command fails at once, and the
 * limiter applies its fail mode instead of letting requests wait.
 */
export class RedisStore implements BucketStore {
  readonly name = "redis" as const;
  private readonly connection: RespConnection;

  constructor(url: string) {
    this.connection = new RespConnection(url);
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

  async close(): Promise<void> {
    this.connection.close();
  }
}
