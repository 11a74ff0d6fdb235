/**
 * One authenticated call as its route sees it: who called and from where,
 * its request id, and its usage. Every call ends in exactly one usage
 * record: written when its response is sent (finish), or, for a stream,
 * when the stream ends (streams).
 *
 * A route documented billable (`secured(detail, { billable: true })`, which
 * the OpenAPI document shows as `x-billable`) hands over what its verb used
 * with charge(); it is the only kind of route that may, and the only kind
 * that may start a research run (research/run/hold.ts). A billable call
 * that succeeds without being charged is logged as an error: its tokens are
 * lost. Any other route records its calls with no tokens.
 */
import type { CallTarget, Usage, UsageSink } from "../call-usage.ts";
import type { CallOrigin, Caller } from "../caller.ts";
import type { Logger } from "../log.ts";

export interface CallInit {
  caller: Caller;
  /** The client's address (client-address.ts); null when nothing tells it. */
  address: string | null;
  requestId: string;
  /** The method and route pattern ("POST /v1/search"): what a usage record names. */
  route: string;
  billable: boolean;
  usage: UsageSink;
  /** The service clock: records are stamped by it. */
  now(): number;
  log: Logger;
  /** Hears how long the call's research run waited for a slot (the request's log line). */
  queued?(slot: { waitedMs: number; ahead: number }): void;
}

export class Call {
  readonly caller: Caller;
  /** Who called from where: what limit-evasion detection counts. */
  readonly origin: CallOrigin;
  readonly requestId: string;
  readonly route: string;
  readonly billable: boolean;
  private target: CallTarget = {};
  private tokens: number | undefined;
  private stream: ((usage: Usage) => void) | undefined;
  private finished = false;

  constructor(private readonly init: CallInit) {
    this.caller = init.caller;
    this.origin = { caller: init.caller, address: init.address };
    this.requestId = init.requestId;
    this.route = init.route;
    this.billable = init.billable;
  }

  /** What the call runs (an endpoint version, a published endpoint): on its record whatever the outcome. */
  ran(target: CallTarget): void {
    this.target = { ...this.target, ...target };
  }

  /** The tokens a billable call's verb used, handed back when it answered. */
  charge(usage: Pick<Usage, "tokens">): void {
    this.mustBeBillable("be charged");
    this.tokens = usage.tokens;
  }

  /**
   * A stream outlives its request: its usage is recorded when it ends (by
   * the function returned, the first time it is called), under the stream's
   * own route name; the response's end records nothing. Asked again, it
   * gives the same function.
   */
  streams(route: string): (usage: Usage) => void {
    this.mustBeBillable("stream a run");
    if (this.stream) return this.stream;
    let recorded = false;
    this.stream = (usage) => {
      if (recorded) return;
      recorded = true;
      this.init.usage.record({ ...this.target, ...usage, caller: this.caller, route, requestId: this.requestId });
    };
    return this.stream;
  }

  /** For a research run: its wait for a slot goes on the request's log line. */
  waited(slot: { waitedMs: number; ahead: number }): void {
    this.init.queued?.(slot);
  }

  /** The response went out with `status`: the call's one record, unless its stream writes it. */
  finish(status: number): void {
    if (this.finished || this.stream) return;
    this.finished = true;
    const succeeded = status < 400;
    if (this.billable && succeeded && this.tokens === undefined)
      this.init.log.error("a billable call succeeded without handing over its usage", { request_id: this.requestId, route: this.route });
    this.init.usage.record({
      ...this.target,
      caller: this.caller,
      route: this.route,
      status,
      tokens: succeeded ? (this.tokens ?? 0) : 0,
      requestId: this.requestId,
      at: new Date(this.init.now()),
    });
  }

  /** Throws for a route not documented billable: a programming error, which its tests see as a 500. */
  mustBeBillable(what: string): void {
    if (!this.billable)
      throw new Error(
        `${this.route} is not documented as billable, so it may not ${what}: declare it with secured(detail, { billable: true })`,
      );
  }
}
