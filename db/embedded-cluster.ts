/**
 * The first start on an empty folder: the embedded database's cluster is made
 * (from the shipped template, or by initdb) and migrated by a short-lived
 * process (db/embedded-cluster-child.ts), and this one opens the ready folder.
 * Making a cluster costs WASM memory that a process keeps (initdb: 600 MB,
 * the template: 250); spent in a child, it is gone when the child exits
 * (measured: the server's first-start peak went from 660 MB to under 300).
 */
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./embedded-cluster-child.ts", import.meta.url));
/** initdb takes 3 to 15 s on a busy small machine; a child still at it after this is stuck, not slow. */
const CHILD_TIMEOUT_MS = 180_000;
/** How much of the child's stderr a failure quotes: the end, where the reason is. */
const STDERR_QUOTED = 4000;

export class EmbeddedClusterFailed extends Error {}

/** What making a cluster took, for the first start's log line. */
export interface ClusterMade {
  /** The shipped template (db/cluster-template.ts), or initdb when the template does not fit this PGlite. */
  source: "template" | "initdb";
  ms: number;
  /** The child's peak resident memory (undefined where /proc is not): what the machine needed for the first start, this process apart. */
  childPeakRssBytes: number | undefined;
}

/**
 * Makes a migrated cluster in `pgdata` (absent or an empty folder) in a child process; throws EmbeddedClusterFailed
 * with the child's account. `templateDir`: another template than the shipped one (tests).
 */
export async function createClusterInChild(pgdata: string, templateDir?: string): Promise<ClusterMade> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, CHILD, pgdata, ...(templateDir ? [templateDir] : [])], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: CHILD_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code === 0) {
    const said = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { source?: string; peakRssBytes?: number | null };
    return {
      source: said.source === "template" ? "template" : "initdb",
      ms: Math.round(performance.now() - started),
      childPeakRssBytes: said.peakRssBytes ?? undefined,
    };
  }
  const how =
    child.signalCode === "SIGKILL"
      ? "was killed (SIGKILL: out of memory, or stuck for " + CHILD_TIMEOUT_MS / 1000 + " s)"
      : child.signalCode
        ? `was ended by ${child.signalCode}`
        : `exited with code ${code}`;
  const said = stderr.trim().slice(-STDERR_QUOTED);
  throw new EmbeddedClusterFailed(
    `creating the embedded database in ${pgdata} failed: the process making it ${how}${said ? `:\n${said}` : ""}`,
  );
}
