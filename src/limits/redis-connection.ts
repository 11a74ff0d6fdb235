/**
 * The Redis plumbing the limiter's stores and abuse detection's windows
 * share: a Bun RESP client that recovers after Bun gives up reconnecting,
 * an Upstash REST client with our timeouts, and running a Lua script by
 * its SHA with EVAL only when Redis has lost it (restart, SCRIPT FLUSH).
 */
import { RedisClient } from "bun";
import { Redis } from "@upstash/redis";

/** A Lua script and its SHA-1 (as EVALSHA wants it), computed once. */
export class LuaScript {
  private sha: Promise<string> | undefined;

  constructor(readonly source: string) {}

  digest(): Promise<string> {
    this.sha ??= crypto.subtle.digest("SHA-1", new TextEncoder().encode(this.source)).then((d) => Buffer.from(d).toString("hex"));
    return this.sha;
  }
}

/**
 * What a store asks of Redis: load a script, run it by its SHA (EVAL only when
 * Redis has lost it), and let go. RESP and Upstash's REST API differ only in
 * how they send these.
 */
export interface ScriptConnection {
  load(script: LuaScript): Promise<void>;
  run(script: LuaScript, keys: string[], args: string[]): Promise<unknown>;
  close(): void;
}

const isNoScript = (error: unknown) => error instanceof Error && /NOSCRIPT/i.test(error.message);

/**
 * No offline queue: while Redis is away a command fails at once (the limiter applies its fail mode,
 * detection drops the count) instead of waiting.
 */
export class RespConnection implements ScriptConnection {
  private client: RedisClient;
  private connecting: Promise<void> | undefined;

  constructor(private readonly url: string) {
    this.client = RespConnection.newClient(url);
  }

  private static newClient(url: string): RedisClient {
    return new RedisClient(url, { enableOfflineQueue: false, connectionTimeout: 2_000, autoReconnect: true, maxRetries: 10 });
  }

  /** Bun's client stops reconnecting after maxRetries; a fresh client recovers without a restart. */
  async ready(): Promise<RedisClient> {
    if (this.client.connected) return this.client;
    this.connecting ??= (async () => {
      try {
        await this.client.connect();
      } catch {
        this.client.close();
        this.client = RespConnection.newClient(this.url);
        await this.client.connect();
      }
    })().finally(() => {
      this.connecting = undefined;
    });
    await this.connecting;
    return this.client;
  }

  async load(script: LuaScript): Promise<void> {
    await (await this.ready()).send("SCRIPT", ["LOAD", script.source]);
  }

  async run(script: LuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const client = await this.ready();
    const rest = [String(keys.length), ...keys, ...args];
    try {
      return await client.send("EVALSHA", [await script.digest(), ...rest]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return client.send("EVAL", [script.source, ...rest]);
    }
  }

  close(): void {
    this.client.close();
  }
}

/** Upstash over its REST API: the client's own retries (with backoff) are off, the caller's deadline rules. */
export class UpstashConnection implements ScriptConnection {
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

  async load(script: LuaScript): Promise<void> {
    await this.redis.scriptLoad(script.source);
  }

  async run(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(await script.digest(), keys, args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return this.redis.eval(script.source, keys, args);
    }
  }

  /** Each request is its own HTTPS call: nothing stays open. */
  close(): void {}
}
