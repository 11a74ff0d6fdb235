import { RespConnection, UpstashConnection, type ScriptConnection } from "../limits/redis-connection.ts";
import { breachesFromReply, scriptArgs, scriptKeys, windowsScript } from "./window-script.ts";
import type { WindowStore } from "./window-store.ts";
import type { Breach, Sighting, WindowSettings } from "./windows.ts";

/** The windows in Redis, kept by the windows script: one script run per counted call, whichever way the connection sends it. */
export class ScriptedWindows implements WindowStore {
  constructor(
    readonly name: "redis" | "upstash",
    private readonly connection: ScriptConnection,
    private readonly settings: WindowSettings,
  ) {}

  async record(sightings: readonly Sighting[], now: number): Promise<Breach[]> {
    if (!sightings.length) return [];
    const reply = await this.connection.run(windowsScript, scriptKeys(sightings, this.settings), scriptArgs(sightings, this.settings, now));
    return breachesFromReply(reply, sightings);
  }

  async close(): Promise<void> {
    this.connection.close();
  }
}

/**
 * The windows in Redis over RESP with Bun's built-in client, on the same
 * connection settings as the rate limiter's store (limits/redis-store.ts):
 * no offline queue, so while Redis is away a count fails at once and is
 * dropped rather than held. One EVALSHA per counted call.
 */
export class RedisWindows extends ScriptedWindows {
  constructor(url: string, settings: WindowSettings) {
    super("redis", new RespConnection(url), settings);
  }
}

/** The windows in Upstash Redis through its REST API, with the same script: one HTTPS request per counted call. */
export class UpstashWindows extends ScriptedWindows {
  constructor(url: string, token: string, timeoutMs: number, settings: WindowSettings) {
    super("upstash", new UpstashConnection(url, token, timeoutMs), settings);
  }
}
