/**
 * Quorum and grace: a run does not wait for a straggler once it has what it
 * needs. The quorum holds when the calls that answered hold `need` distinct
 * results (the pages the run will read) and at least `share` of the run's
 * calls are in (answered or failed). From then on each call still out gets a
 * grace, `graceFactor` times its provider's median call time on this
 * instance (bounded by `graceMinMs` and `graceMaxMs`; the longest for a
 * provider not heard from yet, since a median borrowed from a faster one
 * would cut it every time), and is cut when the grace ends: its requests
 * are aborted and the run goes on without it.
 * Without the quorum (too few results in hand) the run waits as before, up
 * to each call's own timeout.
 */
import { CallLatencies } from "./call-latencies.ts";
import { canonicalUrl } from "./canonical-url.ts";
import type { SearchHit } from "./sources/source.ts";

export interface QuorumSettings {
  enabled: boolean;
  /** The share of the run's calls that must be in before a grace starts. */
  share: number;
  /** A straggler's grace, as a multiple of its provider's median call time. */
  graceFactor: number;
  graceMinMs: number;
  graceMaxMs: number;
}

/** The reason a cut call's signal carries. */
export class StragglerCut extends Error {
  constructor(
    readonly graceMs: number,
    readonly waitedMs: number,
  ) {
    super("cut after grace (straggler)");
  }
}

/** One provider call as the quorum sees it: its signal is the run's, aborted with a StragglerCut when the call is cut. */
export interface QuorumCall {
  readonly provider: string;
  readonly signal: AbortSignal;
}

interface Outstanding extends QuorumCall {
  readonly startedAt: number;
  readonly cut: AbortController;
  timer?: ReturnType<typeof setTimeout>;
}

export interface QuorumOptions {
  settings: QuorumSettings;
  /** Distinct results (canonical URLs) the run needs in hand: the pages it reads. */
  need: number;
  /** How many calls the run makes. */
  calls: number;
  /** Each provider's recent call times on this instance (missing providers are added). */
  latencies: Map<string, CallLatencies>;
  signal: AbortSignal;
}

export class Quorum {
  private readonly outstanding = new Set<Outstanding>();
  private readonly found = new Set<string>();
  private settled = 0;
  private reached = false;

  constructor(private readonly options: QuorumOptions) {}

  begin(provider: string): QuorumCall {
    const cut = new AbortController();
    const call: Outstanding = { provider, startedAt: performance.now(), cut, signal: AbortSignal.any([this.options.signal, cut.signal]) };
    this.outstanding.add(call);
    if (this.reached) this.startGrace(call);
    return call;
  }

  /** A call's (filtered) hits arrived: they count toward the need, and its time toward its provider's median. */
  answered(call: QuorumCall, hits: SearchHit[]): void {
    const waiting = call as Outstanding;
    if (!this.outstanding.has(waiting)) return;
    this.latenciesOf(call.provider).record(performance.now() - waiting.startedAt);
    for (const hit of hits) {
      const key = canonicalUrl(hit.url);
      if (key) this.found.add(key);
    }
    this.settle(call);
  }

  /** The call is over, however it ended (idempotent). */
  settle(call: QuorumCall): void {
    const waiting = call as Outstanding;
    if (!this.outstanding.delete(waiting)) return;
    clearTimeout(waiting.timer);
    this.settled++;
    if (!this.reached && this.holds()) {
      this.reached = true;
      for (const other of this.outstanding) this.startGrace(other);
    }
  }

  /** Why the call ended, when the quorum cut it. */
  cutOf(call: QuorumCall): StragglerCut | undefined {
    const reason: unknown = (call as Outstanding).cut.signal.reason;
    return reason instanceof StragglerCut ? reason : undefined;
  }

  private holds(): boolean {
    const { settings, need, calls, signal } = this.options;
    return (
      settings.enabled && !signal.aborted && this.outstanding.size > 0 && this.found.size >= need && this.settled >= settings.share * calls
    );
  }

  private startGrace(call: Outstanding): void {
    const { graceFactor, graceMinMs, graceMaxMs } = this.options.settings;
    const median = this.latenciesOf(call.provider).median();
    const graceMs = median === undefined ? graceMaxMs : Math.round(Math.min(graceMaxMs, Math.max(graceMinMs, graceFactor * median)));
    call.timer = setTimeout(() => {
      if (!this.outstanding.has(call)) return;
      const waitedMs = Math.round(performance.now() - call.startedAt);
      this.latenciesOf(call.provider).record(waitedMs);
      this.settle(call);
      call.cut.abort(new StragglerCut(graceMs, waitedMs));
    }, graceMs);
  }

  private latenciesOf(provider: string): CallLatencies {
    let latencies = this.options.latencies.get(provider);
    if (!latencies) this.options.latencies.set(provider, (latencies = new CallLatencies()));
    return latencies;
  }
}
