/**
 * PGlite keeps its database in a folder and assumes one process owns it: two
 * processes writing the same folder corrupt it. This lock file makes that
 * rule explicit, so the CLI can refuse (and say why) while the server runs.
 */
import { mkdir, open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";

export class EmbeddedDatabaseBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
    readonly holderRole: string,
  ) {
    super(`the embedded database in ${dataDir} is held by process ${holderPid} (${holderRole})`);
  }
}

export interface EmbeddedLock {
  release(): Promise<void>;
}

interface LockRecord {
  pid: number;
  role: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the lock or throws EmbeddedDatabaseBusy; a lock left by a dead process is taken over. */
export async function lockEmbeddedDatabase(dataDir: string, role: string): Promise<EmbeddedLock> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, "embedded.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, "wx");
      const record: LockRecord = { pid: process.pid, role, since: new Date().toISOString() };
      await handle.writeFile(JSON.stringify(record));
      await handle.close();
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = await readLock(path);
      if (holder && holder.pid !== process.pid && alive(holder.pid)) {
        throw new EmbeddedDatabaseBusy(dataDir, holder.pid, holder.role);
      }
      // Stale: its process is gone (or the file is unreadable). Remove and retry.
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not take the embedded database lock in ${dataDir}`);
}

async function readLock(path: string): Promise<LockRecord | null> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<LockRecord>;
    return typeof parsed.pid === "number"
      ? { pid: parsed.pid, role: String(parsed.role ?? "unknown"), since: String(parsed.since ?? "") }
      : null;
  } catch {
    return null;
  }
}
