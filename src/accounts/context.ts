/**
 * What the accounts verbs are given: the database, the clock and the
 * server's caches and watches (absent in the CLI). Its own module, so the
 * verbs that take it need not import one another for a type.
 */
import type { Database } from "../../db/client.ts";
import type { BackgroundWrites } from "../background.ts";
import type { Clock } from "../clock.ts";
import type { LogFields } from "../log.ts";
import type { KeyCache } from "./key-cache.ts";
import type { StandingWatch } from "./standing-watch.ts";

export interface AccountsContext {
  db: Database;
  clock: Clock;
  /** The server's lookup cache; the CLI runs without one. */
  keyCache?: KeyCache;
  /** The server's running calls per account: a suspension made here ends them without waiting for the feed. */
  standing?: StandingWatch;
  /** Where background writes that fail (the last-used stamp) are reported. */
  warn?: (msg: string, fields?: LogFields) => void;
  /** Tracks those writes, so shutdown and tests can wait on them. */
  background?: BackgroundWrites;
}
