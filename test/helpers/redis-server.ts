/**
 * A private redis-server process on a free loopback port, for tests that
 * stop and restart Redis without disturbing the shared one.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient, type Subprocess } from "bun";

export const redisServerBinary = Bun.which("redis-server");

export async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** Starts it again after `kill()`: `privateRedis()` has started it already. */
  start(): Promise<void>;
  /** SIGKILL: the way a crashed or unreachable Redis looks to clients. */
  kill(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  if (!redisServerBinary) throw new Error("redis-server is not installed");
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "redis-"));
  let child: Subprocess | undefined;
  const handle: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      // A second server on the same port would fail to bind, and this handle would then kill only that one.
      if (child && child.exitCode === null && child.signalCode === null) throw new Error("the private redis-server is running");
      child = Bun.spawn(
        [redisServerBinary!, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
        {
          stdout: "ignore",
          stderr: "ignore",
        },
      );
      for (let i = 0; i < 100; i++) {
        const client = new RedisClient(handle.url, { connectionTimeout: 200, autoReconnect: false });
        try {
          await client.send("PING", []);
          return;
        } catch {
          await Bun.sleep(50);
        } finally {
          client.close();
        }
      }
      throw new Error("private redis-server did not start");
    },
    async kill() {
      child?.kill("SIGKILL");
      await child?.exited;
    },
  };
  await handle.start();
  return handle;
}
