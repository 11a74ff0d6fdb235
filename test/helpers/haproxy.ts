/**
 * HAProxy (Debian's package) in front of a fleet on loopback, configured the
 * way the issue's balancer is: round-robin per request, a health check on
 * `/readyz` every second, and a retry only when the connection to an
 * instance fails, never once a request has reached one (so an instance's
 * 503 `draining` reaches the client, as it would on Fly). Each response
 * names the instance that answered it (`x-fleet-instance`), and HAProxy's
 * stats page gives its own view of the backends (up, down, in transition).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { captureOutput } from "./process.ts";
import { freePort } from "./redis-server.ts";

export const haproxyBinary = Bun.which("haproxy") ?? (existsSync("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : undefined);

/** The header HAProxy adds to every response: the name of the instance that answered. */
export const INSTANCE_HEADER = "x-fleet-instance";

/** How often HAProxy asks each instance's /readyz, and how many answers in a row change its mind. */
export const HEALTH_CHECK = { intervalMs: 1_000, fall: 2, rise: 2 } as const;

/**
 * After an instance starts answering /readyz 503, the longest it may go on
 * receiving new requests: `fall` failed checks, the first up to one interval
 * away. An instance's drain grace must outlast it.
 */
export const UNROUTED_WITHIN_MS = HEALTH_CHECK.fall * HEALTH_CHECK.intervalMs;

export interface Backend {
  name: string;
  /** HAProxy's word: UP, DOWN, "UP 1/2" (going down), "DOWN 1/2" (coming up), MAINT, no check. */
  status: string;
}

export interface Balancer {
  url: string;
  /** HAProxy's own view of the backends, from its stats page. */
  backends(): Promise<Backend[]>;
  /** Waits until HAProxy sees the instance as `status` (UP or DOWN). */
  waitFor(name: string, status: "UP" | "DOWN", timeoutMs?: number): Promise<void>;
  /** What HAProxy printed (its warnings and alerts). */
  output(): string;
  stop(): Promise<void>;
}

function configuration(port: number, statsPort: number, servers: { name: string; port: number }[]): string {
  const { intervalMs, fall, rise } = HEALTH_CHECK;
  return `global
  maxconn 4096

defaults
  mode http
  # Loopback connects at once; a retry after a refused connection waits this long first (HAProxy's turn-around).
  timeout connect 250ms
  timeout client 150s
  timeout server 150s
  timeout tunnel 150s
  timeout http-keep-alive 10s
  # A request is sent again, to another instance, only when its connection could not be made:
  # an answer (503 draining included) or a connection cut mid-request reaches the client.
  retries 3
  retry-on conn-failure
  option redispatch 1

frontend fleet
  bind 127.0.0.1:${port}
  default_backend instances

backend instances
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr host 127.0.0.1
  http-check expect status 200
  http-response set-header ${INSTANCE_HEADER} %s
  default-server check inter ${intervalMs}ms fall ${fall} rise ${rise}
${servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port}`).join("\n")}

listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /
`;
}

export async function startBalancer(servers: { name: string; port: number }[]): Promise<Balancer> {
  if (!haproxyBinary) throw new Error("haproxy is not installed (Debian: apt-get install -y haproxy; .ci/run installs it)");
  const [port, statsPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), "fleet-haproxy-"));
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, configuration(port, statsPort, servers));
  // -db: in the foreground, so the child is HAProxy itself and a signal to it reaches it.
  const child: Subprocess<"ignore", "pipe", "pipe"> = Bun.spawn([haproxyBinary, "-db", "-f", file], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = captureOutput(child);

  const backends = async (): Promise<Backend[]> => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/;csv`)).text();
    const [header, ...rows] = csv.trim().split("\n");
    const columns = header!.replace(/^# /, "").split(",");
    const at = (name: string) => columns.indexOf(name);
    return rows
      .map((row) => row.split(","))
      .filter((cells) => cells[at("pxname")] === "instances" && !["FRONTEND", "BACKEND"].includes(cells[at("svname")]!))
      .map((cells) => ({ name: cells[at("svname")]!, status: cells[at("status")]! }));
  };

  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${statsPort}/;csv`).catch(() => null);
    if (up?.ok) break;
    if (child.exitCode !== null || i > 200) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`haproxy did not start:\n${output()}`);
    }
    await Bun.sleep(25);
  }

  return {
    url: `http://127.0.0.1:${port}`,
    backends,
    output,
    async waitFor(name, status, timeoutMs = 15_000) {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const seen = (await backends()).find((b) => b.name === name)?.status;
        if (seen === status) return;
        if (performance.now() > until) throw new Error(`haproxy still sees ${name} as ${seen} after ${timeoutMs} ms, not ${status}`);
        await Bun.sleep(50);
      }
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await child.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
