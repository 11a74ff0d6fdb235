/**
 * A session's event log as the SDK's transport keeps it: every message its
 * streams send goes to the shared store (session-store.ts), and a notice
 * tells the fleet the log grew, so a stream resumed on another instance
 * (session-stream.ts) writes what this one's server sends after the client
 * left, a long search's answer included.
 *
 * A log that cannot be written costs resumability, not the message: the
 * transport still writes it to the stream it has open.
 */
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpSessionStore } from "./session-store.ts";
import type { SessionNotices } from "./session-notices.ts";

/** The id an event gets when nothing was stored: resuming from it finds nothing to resume. */
const UNSTORED = "0";

export class SessionEventLog implements EventStore {
  /** While true nothing is stored: an instance initialising its server for a session made elsewhere (runtime.ts). */
  quiet = false;
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly sessionId: string,
    private readonly store: McpSessionStore,
    private readonly notices: SessionNotices,
    private readonly now: () => number,
    private readonly warn: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  /**
   * One at a time, in the order the transport sends: it writes each message once its event is stored, so a
   * store that answers out of order (a pool of connections) would reorder the stream and its ids.
   */
  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const stored = this.last.then(() => this.logged(streamId, message));
    this.last = stored;
    return stored;
  }

  private async logged(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    if (this.quiet) return UNSTORED;
    try {
      const id = await this.store.append(this.sessionId, streamId, message);
      if (id === null) return UNSTORED;
      this.notices
        .publish({ kind: "event", sessionId: this.sessionId })
        .catch((error: unknown) => this.warn("an MCP session notice could not be sent; streams elsewhere catch up later", { error }));
      return String(id);
    } catch (error) {
      this.warn("an MCP session's event could not be logged; it cannot be resumed", { error });
      return UNSTORED;
    }
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return (await this.at(eventId))?.streamId;
  }

  /** What the SDK's own resumption asks; GET streams are served by session-stream.ts, which reads the store itself. */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = await this.at(lastEventId);
    if (!last) return "";
    const events = (await this.store.eventsFrom(this.sessionId, last.id + 1, this.now())) ?? [];
    for (const event of events)
      if (event.streamId === last.streamId && !isPriming(event.message)) await send(String(event.id), event.message);
    return last.streamId;
  }

  private async at(eventId: EventId) {
    const id = eventIdNumber(eventId);
    if (id === null) return undefined;
    const [event] = (await this.store.eventsFrom(this.sessionId, id, this.now())) ?? [];
    return event?.id === id ? event : undefined;
  }
}

/** A Last-Event-ID as the log's number, or null when it cannot be one of its ids. */
export function eventIdNumber(eventId: string): number | null {
  return /^[1-9]\d{0,15}$/.test(eventId) ? Number(eventId) : null;
}

/** A priming event (an empty message) only hands the client its cursor; there is nothing in it to send again. */
export function isPriming(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}
