import { RespConnection } from "./redis-connection.ts";
import { ScriptedStore } from "./scripted-store.ts";

/**
 * Buckets in Redis over RESP with Bun's built-in client. One EVALSHA per
 * check or per lease; EVAL only when Redis has lost the script (restart, SCRIPT FLUSH).
 * No offline queue: while Redis is away a command fails at once, and the
 * limiter applies its fail mode instead of letting requests wait.
 */
export class RedisStore extends ScriptedStore {
  constructor(url: string) {
    super("redis", new RespConnection(url));
  }
}
