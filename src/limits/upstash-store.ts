import { UpstashConnection } from "./redis-connection.ts";
import { ScriptedStore } from "./scripted-store.ts";

/**
 * Buckets in Upstash Redis through its REST API (`@upstash/redis`), with the
 * same script as RedisStore: one HTTPS request per check or per lease. The client's own
 * retries (with backoff) are off: the limiter has a short deadline of its own.
 */
export class UpstashStore extends ScriptedStore {
  constructor(url: string, token: string, timeoutMs: number) {
    super("upstash", new UpstashConnection(url, token, timeoutMs));
  }
}
