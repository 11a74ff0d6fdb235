/**
 * "An account's endpoints or subscriptions changed": a domain event, told by
 * the verbs that change them (endpoints/service.ts, marketplace/), once
 * their change is committed. Faces that list an account's endpoints
 * subscribe to it: the MCP face tells the account's open sessions that
 * their tools changed. Who calls the verb (a route, the dashboard, a test)
 * does not matter, so no face has to guess from a request's path.
 *
 * In this process only, on the web's own EventTarget: an instance of a
 * fleet hears the changes made through it.
 */
import type { Logger } from "../log.ts";

export type EndpointChangeKind = "designed" | "edited" | "versioned" | "released" | "deleted" | "published" | "subscribed" | "unsubscribed";

export interface EndpointChange {
  accountId: string;
  kind: EndpointChangeKind;
}

const CHANGED = "endpoint-changed";

export class EndpointChanges {
  private readonly target = new EventTarget();

  constructor(private readonly log: Logger) {}

  /** Tells every listener, in the order they subscribed. */
  emit(change: EndpointChange): void {
    this.target.dispatchEvent(new CustomEvent(CHANGED, { detail: change }));
  }

  /** Hears every change from now on; the function returned stops hearing. */
  subscribe(listener: (change: EndpointChange) => void): () => void {
    const handler = (event: Event) => {
      const change = (event as CustomEvent<EndpointChange>).detail;
      // A listener's failure must not fail the verb that changed something (it is committed), nor, thrown out of
      // an EventTarget, end Bun's process as an uncaught error.
      try {
        listener(change);
      } catch (error) {
        this.log.error("an endpoint change listener failed", { account_id: change.accountId, kind: change.kind, error });
      }
    };
    this.target.addEventListener(CHANGED, handler);
    return () => this.target.removeEventListener(CHANGED, handler);
  }
}
