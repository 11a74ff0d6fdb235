/**
 * WEB_CONCURRENCY server processes on one port, one per core. The process the
 * platform starts and signals becomes their supervisor: it starts each worker
 * (this same entry again, with WEB_WORKER set to its number), restarts one
 * that exits unexpectedly, and on SIGTERM passes the drain to every worker and
 * exits when they have: 0 if each drained and exited 0, 1 if not. The kernel
 * spreads new connections over the workers' sockets (SO_REUSEPORT, Linux):
 * the supervisor never touches a request.
 *
 * Each worker is an instance of its own, as between machines: what they share
 * goes through Postgres and Redis, which config.ts requires for more than one.
 */
import { once } from "node:events";
import type { Subprocess } from "bun";
import { type Config, WEB_WORKER_ENV } from "../config.ts";
import type { Logger } from "../log.ts";

/** A worker that exited is started again after 250 ms, then twice as late each time it exits again within the window. */
const RESTART_FIRST_MS = 250;
const RESTART_LONGEST_MS = 8_000;
/**
 * A worker that exits more often than this within the window is not started
 * again (one that fails at start would otherwise spin): the supervisor drains
 * the others and exits 1, for the platform to restart the machine and show why.
 */
const EXITS_ALLOWED = 5;
const EXIT_WINDOW_MS = 60_000;

export interface Supervision {
  config: Config;
  log: Logger;
  /** The environment the workers start with (this process's). */
  environment: Record<string, string | undefined>;
  /** What starts this entry again: the runtime, its flags, the entry. */
  command: string[];
}

type Worker = Subprocess<"pipe", "pipe", "pipe">;

interface Slot {
  readonly number: number;
  child: Worker | null;
  restart: Timer | null;
  /** When it exited unexpectedly, within the window. */
  exits: number[];
}

/** Runs the workers until SIGTERM (or SIGINT) has drained them all, then exits the process. */
export async function superviseWorkers({ config, log, environment, command }: Supervision): Promise<never> {
  const port = claimPort(config.host, config.port);
  const slots: Slot[] = Array.from({ length: config.web.concurrency }, (_, i) => ({
    number: i + 1,
    child: null,
    restart: null,
    exits: [],
  }));
  const forwarding = new Set<Promise<void>>();
  let stopping = false;
  let clean = true;
  const { promise: allStopped, resolve: stopped } = Promise.withResolvers<void>();

  const start = (slot: Slot) => {
    slot.restart = null;
    const child = Bun.spawn(command, {
      // The port is fixed for all (PORT=0 was resolved once above), and so is the count each sizes its share by.
      env: { ...environment, PORT: String(port), WEB_CONCURRENCY: String(slots.length), [WEB_WORKER_ENV]: String(slot.number) },
      stdin: "pipe", // held open and never written: its end tells the worker that the supervisor is gone
      stdout: "pipe",
      stderr: "pipe",
    });
    slot.child = child;
    for (const copy of [forwardLines(child.stdout, process.stdout), forwardLines(child.stderr, process.stderr)]) {
      forwarding.add(copy);
      void copy.finally(() => forwarding.delete(copy));
    }
    log.info("worker started", { worker: slot.number, pid: child.pid });
    void child.exited.then(() => exited(slot, child));
  };

  const exited = (slot: Slot, child: Worker) => {
    slot.child = null;
    const how = { worker: slot.number, pid: child.pid, code: child.exitCode, signal: child.signalCode ?? undefined };
    if (stopping) {
      if (child.exitCode === 0) log.info("worker stopped", how);
      else {
        clean = false;
        log.error("worker did not drain cleanly", how);
      }
      if (slots.every((s) => s.child === null)) stopped();
      return;
    }
    const now = performance.now();
    slot.exits = [...slot.exits.filter((at) => now - at < EXIT_WINDOW_MS), now];
    if (slot.exits.length > EXITS_ALLOWED) {
      clean = false;
      log.error("worker keeps exiting; stopping the others", { ...how, exits: slot.exits.length, window_ms: EXIT_WINDOW_MS });
      stop("SIGTERM");
      return;
    }
    const delay = Math.min(RESTART_LONGEST_MS, RESTART_FIRST_MS * 2 ** (slot.exits.length - 1));
    log.warn("worker exited; restarting it", { ...how, restart_in_ms: delay });
    slot.restart = setTimeout(() => start(slot), delay);
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const slot of slots) if (slot.restart) clearTimeout(slot.restart);
    const running = slots.filter((slot) => slot.child !== null);
    log.info("draining", { signal, workers: running.length });
    // Each worker drains as a single server does (src/main.ts): the deadline is its own SHUTDOWN_TIMEOUT_MS.
    for (const slot of running) slot.child!.kill(signal);
    if (running.length === 0) stopped();
  };

  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  log.info("supervising", { workers: slots.length, port, pid: process.pid });
  for (const slot of slots) start(slot);

  await allStopped;
  await Promise.all(forwarding);
  log.info("stopped", { workers: slots.length, clean });
  process.exit(clean ? 0 : 1);
}

/**
 * The port every worker binds, taken once without SO_REUSEPORT and let go: it
 * fails when anything else holds the port (a server left running would
 * otherwise share the workers' connections unseen), and turns PORT=0 into the
 * one free port all of them use.
 */
function claimPort(hostname: string, port: number): number {
  try {
    const probe = Bun.listen({ hostname, port, socket: { data() {} } });
    const claimed = probe.port;
    probe.stop(true);
    return claimed;
  } catch (error) {
    process.stderr.write(`cannot start: ${hostname}:${port} is in use (${(error as Error).message})\n`);
    process.exit(2);
  }
}

const NEWLINE = 10;

/**
 * Copies a worker's output to this process's, whole lines at a time: several
 * workers' lines never interleave mid-line, as they could if each wrote its
 * batches (up to 64 KiB, src/log.ts) straight to one shared pipe.
 */
async function forwardLines(from: ReadableStream<Uint8Array>, to: NodeJS.WriteStream): Promise<void> {
  let partial: Uint8Array | undefined;
  const write = async (bytes: Uint8Array) => {
    if (!to.write(bytes)) await once(to, "drain");
  };
  for await (const chunk of from) {
    const end = chunk.lastIndexOf(NEWLINE) + 1;
    if (end === 0) {
      partial = joined(partial, chunk);
      continue;
    }
    await write(joined(partial, chunk.subarray(0, end)));
    partial = end < chunk.length ? chunk.slice(end) : undefined;
  }
  if (partial) await write(partial);
}

function joined(head: Uint8Array | undefined, tail: Uint8Array): Uint8Array {
  if (!head) return tail;
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

/**
 * In a worker: the supervisor holds this process's stdin open and writes
 * nothing; its end means the supervisor is gone (killed, crashed), and the
 * worker drains as on SIGTERM rather than serve on, an orphan on the port
 * that nothing will stop.
 */
export function drainWhenSupervisorGoes(): void {
  void (async () => {
    for await (const _ of Bun.stdin.stream()) {
      // nothing is ever written
    }
    process.kill(process.pid, "SIGTERM");
  })();
}
