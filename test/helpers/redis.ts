import { RedisClient } from "bun";
import { TEST_REDIS_URL } from "./env.ts";

/** A key prefix no other test or run uses. */
export function uniquePrefix(label = "t"): string {
  return `test:${label}:${process.pid}:${crypto.randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under a prefix (SCAN, never KEYS). */
export async function clearPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  if (!url) return;
  const client = new RedisClient(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = (await client.send("SCAN", [cursor, "MATCH", `${prefix}*`, "COUNT", "500"])) as [string, string[]];
      cursor = next;
      if (keys.length) await client.send("DEL", keys);
    } while (cursor !== "0");
  } finally {
    client.close();
  }
}

/** Total calls of a Redis command since the server started, from INFO commandstats. */
export async function commandCalls(command: string, url = TEST_REDIS_URL!): Promise<number> {
  const client = new RedisClient(url);
  try {
    const info = String(await client.send("INFO", ["commandstats"]));
    const match = new RegExp(`cmdstat_${command.toLowerCase()}:calls=(\\d+)`).exec(info);
    return match ? Number(match[1]) : 0;
  } finally {
    client.close();
  }
}
