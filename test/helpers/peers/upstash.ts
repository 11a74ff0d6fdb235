/**
 * A loopback HTTP peer that speaks Upstash's REST protocol in front of a
 * real Redis: POST / with a JSON command array, POST /pipeline with an array
 * of them; `Authorization: Bearer <token>`; answers `{"result": …}` or
 * `{"error": "…"}`, base64-encoding strings when the client sends
 * `Upstash-Encoding: base64` (as @upstash/redis does by default).
 */
import { RedisClient } from "bun";

export interface UpstashPeer {
  url: string;
  token: string;
  /** Commands received, by name (EVALSHA, EVAL, SCRIPT…). */
  commands: string[];
  /** Makes every request hang for this long first (0: answer at once). */
  delayMs: number;
  stop(): Promise<void>;
}

function encode(value: unknown): unknown {
  if (typeof value === "string") return Buffer.from(value, "utf8").toString("base64");
  if (Array.isArray(value)) return value.map(encode);
  return value;
}

export function startUpstashPeer(redisUrl: string, token = "test-token"): UpstashPeer {
  const redis = new RedisClient(redisUrl);
  const peer: UpstashPeer = {
    url: "",
    token,
    commands: [],
    delayMs: 0,
    async stop() {
      server.stop(true);
      redis.close();
    },
  };
  const run = async (command: unknown, base64: boolean) => {
    if (!Array.isArray(command) || command.length === 0) return { status: 400, body: { error: "ERR command must be a non-empty array" } };
    const [name, ...args] = command.map(String);
    peer.commands.push(name!.toUpperCase());
    try {
      const result = await redis.send(name!, args);
      return { status: 200, body: { result: base64 ? encode(result) : result } };
    } catch (error) {
      return { status: 400, body: { error: (error as Error).message } };
    }
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (peer.delayMs > 0) await Bun.sleep(peer.delayMs);
      if (request.headers.get("authorization") !== `Bearer ${token}`) return Response.json({ error: "Unauthorized" }, { status: 401 });
      const base64 = request.headers.get("upstash-encoding") === "base64";
      const path = new URL(request.url).pathname;
      const body = (await request.json()) as unknown;
      if (path === "/pipeline" || path === "/multi-exec") {
        if (!Array.isArray(body)) return Response.json({ error: "ERR pipeline must be an array" }, { status: 400 });
        const results = [];
        for (const command of body) results.push((await run(command, base64)).body);
        return Response.json(results);
      }
      const { status, body: answer } = await run(body, base64);
      return Response.json(answer, { status });
    },
  });
  peer.url = `http://127.0.0.1:${server.port}`;
  return peer;
}
