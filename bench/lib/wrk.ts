/**
 * Drives a target with wrk (Debian's `wrk` package): a compiled load
 * generator in its own process, so what is measured is the server, not a
 * JavaScript client competing for the same cores.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface WrkTarget {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface WrkResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside 2xx and 3xx: expected for the 4xx targets, a sign of trouble for the others. */
  non2xx: number;
  socketErrors: number;
}

/** The wrk binary, installed from Debian's packages when missing and the bench may (root, apt reachable). */
export async function ensureWrk(): Promise<string> {
  const found = Bun.which("wrk");
  if (found) return found;
  const install = Bun.spawn(["sh", "-c", "apt-get install -y wrk || (apt-get update && apt-get install -y wrk)"], {
    stdout: "ignore",
    stderr: "ignore",
  });
  await install.exited;
  const installed = Bun.which("wrk");
  if (!installed) throw new Error("this bench needs wrk: install Debian's package (apt-get install wrk)");
  return installed;
}

const scriptDir = mkdtempSync(join(tmpdir(), "wrk-"));
let scripts = 0;

/** wrk sets method, headers and body from a Lua script; one small file per target. */
function scriptFor(target: WrkTarget): string {
  const lua = [
    `wrk.method = ${JSON.stringify(target.method)}`,
    ...Object.entries(target.headers ?? {}).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
    target.body !== undefined ? `wrk.body = ${JSON.stringify(target.body)}` : "",
  ].join("\n");
  const path = join(scriptDir, `target-${scripts++}.lua`);
  writeFileSync(path, lua);
  return path;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(output: string, percentile: string): number {
  const match = new RegExp(`^\\s+${percentile}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(output);
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : Number.NaN;
}

export function parseWrk(output: string): WrkResult {
  const number = (pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requests: number(/(\d+) requests in/),
    perSecond: number(/Requests\/sec:\s+([\d.]+)/),
    p50Ms: latencyMs(output, "50"),
    p99Ms: latencyMs(output, "99"),
    non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
    socketErrors: errors ? errors.slice(1).reduce((s, n) => s + Number(n), 0) : 0,
  };
}

export async function runWrk(
  wrk: string,
  target: WrkTarget,
  /** `prefix`: a command wrk runs under (taskset, to pin it). */
  options: { seconds: number; connections: number; threads: number; prefix?: string[] },
): Promise<WrkResult> {
  const child = Bun.spawn(
    [
      ...(options.prefix ?? []),
      wrk,
      `-t${options.threads}`,
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      "--latency",
      "--timeout",
      "10s",
      "-s",
      scriptFor(target),
      target.url,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${errors || output}`);
  return parseWrk(output);
}
