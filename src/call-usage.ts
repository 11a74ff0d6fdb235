/**
 * What a call used, as a value: the verb that ran it hands it back (a
 * research run's end, a page read), the route hands it to its call
 * (http/call.ts), and the usage recorder (src/usage/) writes it. Billing is
 * never a field some hook reads later: a route documented billable that
 * ends without handing its usage over is an error, logged and tested.
 */
import type { Caller } from "./caller.ts";

/** How a call ended: its status (200, or the failure's), its tokens (0 for a failure) and when, by the service's clock. */
export interface Usage {
  status: number;
  tokens: number;
  at: Date;
}

/** What a call ran, where that matters to billing: one of the caller's designed endpoint versions, or a published endpoint. */
export interface CallTarget {
  /** The designed endpoint version (its integer id) that ran. */
  apiId?: number;
  /** The published endpoint that ran: its publisher earns a share of a paying caller's cost. */
  publisher?: { accountId: string; publishedId: string };
}

/** One call's usage record: who, which route, how it ended, what it ran. */
export interface UsageEvent extends Usage, CallTarget {
  caller: Caller;
  route: string;
  requestId: string;
}

/** Where usage records go: the recorder, in the app. */
export interface UsageSink {
  record(event: UsageEvent): void;
}
