import { decisionOf, type BucketPolicy, type Decision, type Grant } from "./bucket.ts";
import type { ScriptConnection } from "./redis-connection.ts";
import { grantFromReply, scriptArgs, tokenBucketScript } from "./redis-script.ts";
import type { BucketStore } from "./store.ts";

/**
 * Buckets in Redis, kept by the token-bucket script (redis-script.ts): one
 * script run per check or per lease, whichever way the connection sends it
 * (RedisStore over RESP, UpstashStore over REST).
 */
export class ScriptedStore implements BucketStore {
  constructor(
    readonly name: "redis" | "upstash",
    private readonly connection: ScriptConnection,
  ) {}

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
