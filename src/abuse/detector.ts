/**
 * Limit evasion across Free accounts (SPEC 8.5): one person running many
 * Free accounts together past the Free limit. Every research call of a Free
 * account is counted once (research/run/hold.ts calls observe as the run
 * asks for its slot; /v1/contents calls it too, with no work) under its
 * keyed client address and its work fingerprint, in sliding windows
 * (windows.ts). A window newly breached becomes a flag row with its
 * evidence, and ABUSE_ACTION decides what happens to the accounts in it
 * (actions.ts). Paid accounts are never counted.
 *
 * None of this is on the call's path: observe returns at once and never
 * throws; the counting runs in the background, bounded (past MAX_PENDING
 * counts in flight a call goes uncounted), and a failure is logged
 * (throttled) and forgotten. A call is never slowed or refused by it.
 */
import { randomBytes } from "node:crypto";
import type { AccountsContext } from "../accounts/context.ts";
import type { BackgroundWrites } from "../background.ts";
import type { CallOrigin } from "../caller.ts";
import { planFor } from "../limits/plans.ts";
import { throttledWarn, type Logger } from "../log.ts";
import { metrics } from "../observe/metrics.ts";
import { actOnFlag } from "./actions.ts";
import { flagContents } from "./evidence.ts";
import { addressKey, workText, type Work } from "./fingerprint.ts";
import { forgetFlagsBefore, insertFlag, type AbuseAction } from "./flags.ts";
import type { KeyedHash } from "./keyed-hash.ts";
import type { WindowStore } from "./window-store.ts";
import { sightingsOf, type Breach, type WindowSettings } from "./windows.ts";

/** Counts in flight at most: beyond it Redis or the database is not keeping up, and calls go uncounted. */
const MAX_PENDING = 1_000;

export interface DetectorSettings {
  action: AbuseAction;
  windows: WindowSettings;
  /** RATE_LIMIT_KEY_PREFIX: the windows' keys share the limiter's namespace in Redis. */
  keyPrefix: string;
  retentionDays: number;
}

export interface DetectorDeps {
  /** The database, the clock, and the key cache that an action evicts. */
  accounts: AccountsContext;
  log: Logger;
  /** The counts are tracked here, so shutdown and tests can wait for them. */
  background?: BackgroundWrites;
  /** The keyed hash (keyed-hash.ts), loaded on first use and again after a failure. */
  hashKey(): Promise<KeyedHash>;
}

export class AbuseDetector {
  private hash: Promise<KeyedHash> | undefined;
  private pending = 0;
  private readonly warn: (msg: string, fields?: Record<string, unknown>) => void;

  constructor(
    private readonly store: WindowStore,
    private readonly deps: DetectorDeps,
    private readonly settings: DetectorSettings,
  ) {
    this.warn = throttledWarn(deps.log, 10_000, deps.accounts.clock);
  }

  get storeName(): WindowStore["name"] {
    return this.store.name;
  }

  /** Counts one research call of a Free account, off the call's path. */
  observe(origin: CallOrigin, work: Work | null): void {
    try {
      if (planFor(origin.caller).name !== "free") return;
      if (origin.address === null && work === null) return;
      if (this.pending >= MAX_PENDING) {
        this.warn("abuse detection is behind; calls go uncounted until it catches up", { pending: this.pending });
        return;
      }
      this.pending++;
      const at = this.deps.accounts.clock.now();
      const counting = this.count(origin, work, at)
        .catch((error: unknown) => this.warn("abuse detection failed; the call was not counted", { error }))
        .finally(() => this.pending--);
      this.deps.background?.run(counting);
    } catch (error) {
      this.warn("abuse detection failed; the call was not counted", { error });
    }
  }

  private keyedHash(): Promise<KeyedHash> {
    this.hash ??= this.deps.hashKey().catch((error: unknown) => {
      this.hash = undefined;
      throw error;
    });
    return this.hash;
  }

  private async count(origin: CallOrigin, work: Work | null, at: number): Promise<void> {
    const hash = await this.keyedHash();
    const address = origin.address === null ? "" : hash.of("address", addressKey(origin.address));
    const fingerprint = work === null ? "" : hash.of("work", workText(work));
    const account = origin.caller.accountId;
    const unique = randomBytes(6).toString("base64url");
    const sightings = sightingsOf(`${this.settings.keyPrefix}abuse:`, { account, address, work: fingerprint }, unique);
    for (const breach of await this.store.record(sightings, at))
      await this.raise(breach).catch((error: unknown) =>
        // Its window's marker is set: this breach is not raised again before the window has passed.
        this.warn("a limit-evasion flag could not be written or acted on", {
          error,
          kind: breach.kind,
          window_seconds: breach.windowMs / 1000,
        }),
      );
  }

  /** Records the flag, acts per ABUSE_ACTION, says so once, and forgets the flags past the retention. */
  private async raise(breach: Breach): Promise<void> {
    const { windows, action, retentionDays } = this.settings;
    const threshold = windows.thresholds[windows.windowsMs.indexOf(breach.windowMs)] ?? 0;
    const contents = flagContents(breach, { threshold, minAccounts: windows.minAccounts });
    const { db, clock } = this.deps.accounts;
    const at = new Date(clock.now());
    const flag = await insertFlag(db, contents, action, at);
    metrics.abuseFlags.inc({ kind: contents.kind, action });
    const acted = await actOnFlag(
      this.deps.accounts,
      action,
      flag.id,
      contents.accounts.map((a) => a.account_id),
    );
    this.deps.log.warn("limit evasion across accounts flagged", {
      flag_id: flag.id,
      kind: flag.kind,
      window_seconds: flag.windowSeconds,
      calls: flag.calls,
      accounts: contents.accounts.length,
      action,
      acted_on: acted.length,
    });
    await forgetFlagsBefore(db, new Date(at.getTime() - retentionDays * 86_400_000));
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
