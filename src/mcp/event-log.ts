/**
 * What a session's SSE streams sent, kept so a client whose connection drops
 * during a long search reconnects with Last-Event-ID and receives the rest
 * (the answer included) instead of losing the call. Bounded per session by
 * count and by bytes, oldest dropped first: a client that stays away longer
 * than the log reaches back re-asks.
 */
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface Logged {
  seq: number;
  streamId: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

export const EVENT_LOG_LIMITS = { events: 256, bytes: 512 * 1024 };

export class SessionEventLog implements EventStore {
  private readonly events: Logged[] = [];
  private seq = 0;
  private bytes = 0;

  constructor(private readonly limits = EVENT_LOG_LIMITS) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const bytes = JSON.stringify(message).length;
    this.events.push({ seq: ++this.seq, streamId, message, bytes });
    this.bytes += bytes;
    while (this.events.length > this.limits.events || (this.bytes > this.limits.bytes && this.events.length > 1))
      this.bytes -= this.events.shift()!.bytes;
    return String(this.seq);
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.find(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.find(lastEventId);
    if (!last) return "";
    for (const event of this.events) {
      // A priming event (an empty message) only hands the client its cursor; there is nothing in it to send again.
      if (event.seq <= last.seq || event.streamId !== last.streamId || Object.keys(event.message).length === 0) continue;
      await send(String(event.seq), event.message);
    }
    return last.streamId;
  }

  private find(eventId: EventId): Logged | undefined {
    const seq = /^\d{1,15}$/.test(eventId) ? Number(eventId) : -1;
    return this.events.find((e) => e.seq === seq);
  }
}
