/**
 * One authenticated call as its route sees it: who called and from where,
 * its request id, and its usage. Every call ends in exactly one usage
 * record, under the call's own event id: committed by charge() before a
 * billable answer is sent, or queued when its response is sent (finish),
 * or, for a stream, written when the stream ends (streams).
 *
 * A route documented billable (`secured(detail, { billable: true })`, which
 * the OpenAPI document shows as `x-billable`) hands over what its verb used
 * with `await charge()`: the record and its debit are in the database
 * before the answer leaves, so a process killed just after loses no money.
 * It is the only kind of route that may charge, and the only kind that may
 * start a research run (research/run/hold.ts). A billable call that
 * succeeds without being charged is logged as an error: its tokens are
 * lost. Any other route records its calls with no tokens.
 */
import type { CallTarget, Usage, UsageEvent, UsageSink } from "../call-usage.ts";
import { newId } from "../ids.ts";
import type { CallOrigin, Caller } from "../caller.ts";
import type { Logger } from "../log.ts";
import { NO_SPAN, type TraceSpan } from "../observe/trace.ts";

export interface CallInit {
  caller: Caller;
  /**
   * The client's address (client-address.ts), null when nothing tells it: read when first asked. Most calls never
   * count their address (limit-evasion detection watches research and contents calls), and asking Bun for a
   * socket's peer cost more than the rest of the call's authentication.
   */
  address: () => string | null;
  requestId: string;
  /**
   * The request's span (observe/trace.ts): the research run it starts traces its stages under it. Absent: untraced.
   * A function is asked when the span is first wanted: a call that never wants it leaves its request's span unmade.
   */
  span?: TraceSpan | (() => TraceSpan);
  /** The method and route pattern ("POST /v1/search"): what a usage record names. */
  route: string;
  billable: boolean;
  usage: UsageSink;
  /** The service clock: records are stamped by it. */
  now(): number;
  log: Logger;
  /** Hears how long the call's research run waited for a slot (the request's log line). */
  queued?(slot: { waitedMs: number; ahead: number }): void;
  /** The event id its records carry, when it is not made afresh: a task's run bills under its task's id (tasks/run.ts), however often it runs. */
  eventId?: string;
}

export class Call {
  readonly caller: Caller;
  readonly requestId: string;
  readonly route: string;
  readonly billable: boolean;
  private id: string | undefined;
  private target: CallTarget = {};
  private charged = false;
  private stream: ((usage: Usage) => Promise<void>) | undefined;
  private streamWrite: Promise<void> | undefined;
  private finished = false;
  private from: CallOrigin | undefined;
  /** When the call started (the service clock): its record's latency runs from here to the record's time. */
  private readonly startedAt: number;

  constructor(private readonly init: CallInit) {
    this.startedAt = init.now();
    this.caller = init.caller;
    this.requestId = init.requestId;
    this.route = init.route;
    this.billable = init.billable;
  }

  get span(): TraceSpan {
    const span = this.init.span;
    return typeof span === "function" ? span() : (span ?? NO_SPAN);
  }

  /**
   * Who called from where: what limit-evasion detection counts. A WebSocket call must ask before its upgrade
   * (search/ws.ts): after it Bun no longer knows the socket's peer.
   */
  get origin(): CallOrigin {
    this.from ??= { caller: this.caller, address: this.init.address() };
    return this.from;
  }

  /** The id every record of this call carries: written twice, it is one row and one debit. Made when first asked. */
  get eventId(): string {
    this.id ??= this.init.eventId ?? newId("use");
    return this.id;
  }

  /** What the call runs (an endpoint version, a published endpoint): on its record whatever the outcome. */
  ran(target: CallTarget): void {
    this.target = { ...this.target, ...target };
  }

  /**
   * The tokens a billable call's verb used, handed back when it answered:
   * committed with their debit before the answer is sent. Rejects with 503
   * usage_unavailable when they cannot be written, and the answer is withheld.
   */
  async charge(usage: Pick<Usage, "tokens">): Promise<void> {
    this.mustBeBillable("be charged");
    this.charged = true;
    await this.init.usage.commit(this.event({ status: 200, tokens: usage.tokens, at: new Date(this.init.now()) }));
  }

  /**
   * A stream outlives its request: its usage is recorded when it ends (by
   * the function returned, the first time it is called), under the stream's
   * own route name; the response's end records nothing. A stream that
   * answered commits its usage, which the face awaits (written()) before it
   * closes. Asked again, it gives the same function.
   */
  streams(route: string): (usage: Usage) => Promise<void> {
    this.mustBeBillable("stream a run");
    if (this.stream) return this.stream;
    this.stream = (usage) => {
      if (this.streamWrite) return this.streamWrite;
      const event = { ...this.event(usage), route };
      const write = usage.status < 400 ? this.init.usage.commit(event) : Promise.resolve(this.init.usage.record(event));
      // The run that tells it does not wait for it; the face does (written()), and hears a failure there.
      write.catch(() => {});
      this.streamWrite = write;
      return write;
    };
    return this.stream;
  }

  /** Resolves once the stream's usage is written (at once when nothing was written for it); rejects with 503 when it could not be. */
  written(): Promise<void> {
    return this.streamWrite ?? Promise.resolve();
  }

  /** For a research run: its wait for a slot goes on the request's log line. */
  waited(slot: { waitedMs: number; ahead: number }): void {
    this.init.queued?.(slot);
  }

  /**
   * The response went out with `status`: the call's one record, unless it
   * was charged or its stream writes it. A charged call that then failed
   * (its commit refused) is recorded here too, under the same event id: if
   * the commit did land after all, this record writes nothing.
   */
  finish(status: number): void {
    if (this.finished || this.stream) return;
    this.finished = true;
    const succeeded = status < 400;
    if (this.charged && succeeded) return;
    if (this.billable && succeeded)
      this.init.log.error("a billable call succeeded without handing over its usage", { request_id: this.requestId, route: this.route });
    this.init.usage.record(this.event({ status, tokens: 0, at: new Date(this.init.now()) }));
  }

  private event(usage: Usage): UsageEvent {
    return {
      ...this.target,
      ...usage,
      caller: this.caller,
      route: this.route,
      requestId: this.requestId,
      eventId: this.eventId,
      billable: this.billable,
      // A clock set back mid-call (a test's, a corrected one) is not a negative latency.
      latencyMs: Math.max(0, Math.round(usage.at.getTime() - this.startedAt)),
    };
  }

  /** Throws for a route not documented billable: a programming error, which its tests see as a 500. */
  mustBeBillable(what: string): void {
    if (!this.billable)
      throw new Error(
        `${this.route} is not documented as billable, so it may not ${what}: declare it with secured(detail, { billable: true })`,
      );
  }
}
