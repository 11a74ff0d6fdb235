import { RedisClient } from "bun";
import { decisionOf, type BucketPolicy, type Decision, type Grant } from "./bucket.ts";
import { grantFromReply, isNoScript, scriptArgs, TOKEN_BUCKET_LUA, tokenBucketSha } from "./redis-script.ts";
import type { BucketStore } from "./store.ts";

/**
 * Buckets in Redis over RESP with Bun's built-in client. One EVALSHA per
 * check or per lease; EVAL only when Redis has lost the script (restart, SCRIPT FLUSH).
 * No offline queue: while Redis is away a command fails at once, and the
 * limiter applies its fail mode instead of letting requests wait.
 */
export class RedisStore implements BucketStore {
  readonly name = "redis" as const;
  private client: RedisClient;
  private connecting: Promise<void> | undefined;

  constructor(private readonly url: string) {
    this.client = RedisStore.newClient(url);
  }

  private static newClient(url: string): RedisClient {
    return new RedisClient(url, { enableOfflineQueue: false, connectionTimeout: 2_000, autoReconnect: true, maxRetries: 10 });
  }

  async init(): Promise<void> {
    await this.ensureConnected();
    await this.client.send("SCRIPT", ["LOAD", TOKEN_BUCKET_LUA]);
  }

  /** Bun's client stops reconnecting after maxRetries; a fresh client recovers without a restart. */
  private async ensureConnected(): Promise<void> {
    if (this.client.connected) return;
    this.connecting ??= (async () => {
      try {
        await this.client.connect();
      } catch {
        this.client.close();
        this.client = RedisStore.newClient(this.url);
        await this.client.connect();
      }
    })().finally(() => {
      this.connecting = undefined;
    });
    await this.connecting;
  }

  async take(key: string, policy: BucketPolicy): Promise<Decision> {
    return decisionOf(await this.lease(key, policy, 1), policy);
  }

  async lease(key: string, policy: BucketPolicy, want: number): Promise<Grant> {
    await this.ensureConnected();
    const args = [await tokenBucketSha(), "1", key, ...scriptArgs(policy, want)];
    try {
      return grantFromReply(await this.client.send("EVALSHA", args));
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return grantFromReply(await this.client.send("EVAL", [TOKEN_BUCKET_LUA, ...args.slice(1)]));
    }
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
