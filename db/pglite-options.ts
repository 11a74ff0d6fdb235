/** The settings every embedded database is made and opened with (db/client.ts, db/embedded-cluster-child.ts). */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";

/**
 * PGlite's Postgres gets 16 MB of shared buffers instead of the stock 128 MB, which are all resident
 * from the start (measured: an open instance holds 135 MB instead of 260). A small database's hot pages
 * fit, and the rest stay in the operating system's page cache, a read away, as they do for a server
 * Postgres. Given on the start line, so folders made before this setting get it too. initdb writes
 * 1 MB WAL segments instead of 16: PGlite holds a new cluster in memory more than once while making it,
 * and the smaller one takes some 140 MB off that peak.
 */
const SETTINGS = ["-c", "shared_buffers=16MB"];
export const PGLITE_OPTIONS: PGliteOptions = {
  startParams: [...PGlite.defaultStartParams, ...SETTINGS],
  initDbStartParams: ["--wal-segsize=1", ...SETTINGS],
};
