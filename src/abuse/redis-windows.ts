import { RedisClient } from "bun";
import { Redis } from "@upstash/redis";
import { breachesFromReply, isNoScript, scriptArgs, scriptKeys, WINDOWS_LUA, windowsSha } from "./window-script.ts";
import type { WindowStore } from "./window-store.ts";
import type { Breach, Sighting, WindowSettings } from "./windows.ts";

/**
 * The windows in Redis over RESP with Bun's built-in client, on the same
 * connection settings as the rate limiter's store (limits/redis-store.ts):
 * no offline queue, so while Redis is away a count fails at once and is
 * dropped rather than held. One EVALSHA per counted call.
 */
export class RedisWindows implements WindowStore {
  readonly name = "redis" as const;
  private client: RedisClient;
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly settings: WindowSettings,
  ) {
    this.client = RedisWindows.newClient(url);
  }

  private static newClient(url: string): RedisClient {
    return new RedisClient(url, { enableOfflineQueue: false, connectionTimeout: 2_000, autoReconnect: true, maxRetries: 10 });
  }

  /** Bun's client stops reconnecting after maxRetries; a fresh client recovers without a restart. */
  private async ensureConnected(): Promise<void> {
    if (this.client.connected) return;
    this.connecting ??= (async () => {
      try {
        await this.client.connect();
      } catch {
        this.client.close();
        this.client = RedisWindows.newClient(this.url);
        await this.client.connect();
      }
    })().finally(() => {
      this.connecting = undefined;
    });
    await this.connecting;
  }

  async record(sightings: readonly Sighting[], now: number): Promise<Breach[]> {
    if (!sightings.length) return [];
    await this.ensureConnected();
    const keys = scriptKeys(sightings, this.settings);
    const args = [String(keys.length), ...keys, ...scriptArgs(sightings, this.settings, now)];
    let reply: unknown;
    try {
      reply = await this.client.send("EVALSHA", [await windowsSha(), ...args]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      reply = await this.client.send("EVAL", [WINDOWS_LUA, ...args]);
    }
    return breachesFromReply(reply, sightings);
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/** The windows in Upstash Redis through its REST API, with the same script: one HTTPS request per counted call. */
export class UpstashWindows implements WindowStore {
  readonly name = "upstash" as const;
  private readonly redis: Redis;

  constructor(
    url: string,
    token: string,
    timeoutMs: number,
    private readonly settings: WindowSettings,
  ) {
    this.redis = new Redis({
      url,
      token,
      retry: false,
      enableTelemetry: false,
      automaticDeserialization: false,
      signal: () => AbortSignal.timeout(timeoutMs),
    });
  }

  async record(sightings: readonly Sighting[], now: number): Promise<Breach[]> {
    if (!sightings.length) return [];
    const keys = scriptKeys(sightings, this.settings);
    const args = scriptArgs(sightings, this.settings, now);
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(await windowsSha(), keys, args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      reply = await this.redis.eval(WINDOWS_LUA, keys, args);
    }
    return breachesFromReply(reply, sightings);
  }

  async close(): Promise<void> {}
}
