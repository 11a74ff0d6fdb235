/**
 * Runs the real entry points (src/main.ts, src/cli.ts) as child processes,
 * the way an operator does, and reads what they print.
 */
import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";

export const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ServerProcess {
  child: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

async function collect(stream: ReadableStream<Uint8Array>, sink: string[]): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) sink.push(decoder.decode(chunk, { stream: true }));
}

/** Collects what a child process prints (stdout and stderr, as it comes): the returned function reads it so far. */
export function captureOutput(child: Subprocess<"ignore", "pipe", "pipe">): () => string {
  const chunks: string[] = [];
  void collect(child.stdout, chunks);
  void collect(child.stderr, chunks);
  return () => chunks.join("");
}

/** The server's entry as an operator starts it, on loopback and a free port unless `env` says otherwise. */
export function spawnServer(env: Record<string, string>): Subprocess<"ignore", "pipe", "pipe"> {
  return Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", HOST: "127.0.0.1", PORT: "0", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}

export async function startServer(env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  const child = spawnServer(env);
  const output = captureOutput(child);
  const deadline = Date.now() + timeoutMs;
  let url: string | undefined;
  while (!url) {
    const match = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(output());
    if (match) url = match[1]!;
    else if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    else if (Date.now() > deadline) {
      child.kill();
      throw new Error(`server did not start:\n${output()}`);
    } else await Bun.sleep(50);
  }
  return {
    child,
    url,
    output,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return child.exited;
    },
  };
}

/** Waits until the server has printed something matching `pattern`. */
export async function waitForOutput(server: ServerProcess, pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(server.output());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${server.output()}`);
    await Bun.sleep(25);
  }
}

/** `cwd`: another checkout's CLI (a bench comparing against an earlier commit). */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  cwd = root,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, "src/cli.ts", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}
