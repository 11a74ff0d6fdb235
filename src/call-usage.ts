/**
 * What a call used, as a value: the verb that ran it hands it back (a
 * research run's end, a page read), the route hands it to its call
 * (http/call.ts), and the usage recorder (src/usage/) writes it. Billing is
 * never a field some hook reads later: a route documented billable that
 * ends without handing its usage over is an error, logged and tested.
 */
import type { Caller } from "./caller.ts";
import { ServiceError } from "./errors.ts";

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
  /** The call's own id, made by the server: a call's usage written twice is written, and debited, once. */
  eventId?: string;
  /** Whether its route is billable (research): a session's billable calls are usage, its other calls the dashboard's own browsing. */
  billable?: boolean;
  /** How long the call took, in milliseconds by the service clock: from its start (authentication) to this record; a stream's to its end. */
  latencyMs?: number;
}

/** Where usage records go: the recorder, in the app. */
export interface UsageSink {
  /** Queues a record that moves no money (a failed call, a call that is not billable): written in a batch soon after. */
  record(event: UsageEvent): void;
  /**
   * Writes a record that moves money (a billable call that succeeded) before its answer is sent: when this resolves the
   * record and its debit are in the database, so an instance that dies a millisecond later has lost nothing. Rejects
   * with a 503 usage_unavailable when they could not be written: the answer is then not sent.
   */
  commit(event: UsageEvent): Promise<void>;
  /** False while usage cannot be written (the database refused the last attempt, or too many records wait): calls are refused before they run. */
  accepting(billable: boolean): boolean;
}

/** The refusal of a call whose usage could not be written, or could not be now: it is not run, or its answer is withheld. */
export const usageUnavailable = () =>
  new ServiceError("usage_unavailable", "usage cannot be recorded right now, so the call was not answered; try again shortly", {
    retryAfterSeconds: 5,
  });
