/**
 * Following a task: GET /v1/tasks/{task_id}/events read as server-sent
 * events. EventSource cannot send the CSRF header the session needs, so
 * this reads the stream with fetch and splits the events itself. A stream
 * that drops before the task's final status is opened again with
 * Last-Event-ID, so what already arrived is not sent twice.
 */
import { ApiError, openStream } from "./api.ts";
import type { Source, TaskStatus } from "./model.ts";

export interface TaskStreamHandlers {
  /** `attempt` comes with `running`; a run begun again (its instance stopped) starts its answer afresh. */
  onStatus: (status: TaskStatus, attempt: number | undefined) => void;
  onContext: (sources: Source[]) => void;
  /** A text delta, or the whole object when the task has output_format. */
  onResponse: (content: string | Record<string, unknown>) => void;
  /** The stream could not be kept open (after a few tries). */
  onError: (error: ApiError) => void;
  /** The task reached a final status (succeeded, failed, canceled). */
  onEnd: () => void;
}

const FINAL = new Set<string>(["succeeded", "failed", "canceled"]);
const RECONNECTS = 5;

interface SseEvent {
  id: string | null;
  data: string;
}

/** Splits complete events off the front of `buffer`; answers them and the unfinished rest. */
export function parseEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue; // a heartbeat comment
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) events.push({ id, data: data.join("\n") });
  }
  return { events, rest };
}

/** Follows the task until its final status or until the answer's `stop()` is called. */
export function followTask(taskId: string, handlers: TaskStreamHandlers): () => void {
  const controller = new AbortController();
  let lastId: string | null = null;
  let ended = false;

  const handle = (data: string) => {
    let event: { type?: string; status?: string; attempt?: number; content?: unknown };
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (event.type === "status" && typeof event.status === "string") {
      handlers.onStatus(event.status as TaskStatus, event.attempt);
      if (FINAL.has(event.status)) ended = true;
    } else if (event.type === "context" && Array.isArray(event.content)) handlers.onContext(event.content as Source[]);
    else if (event.type === "response") handlers.onResponse(event.content as string | Record<string, unknown>);
  };

  /** Reads one stream to its end; answers whether it brought any event. */
  const readOnce = async (): Promise<boolean> => {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (lastId) headers["Last-Event-ID"] = lastId;
    // A refusal (404, 401, 429) comes back as the API's own error, read as every other call's.
    const response = await openStream(`/v1/tasks/${encodeURIComponent(taskId)}/events`, headers, controller.signal);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let any = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return any;
      const { events, rest } = parseEvents(buffer + value);
      buffer = rest;
      for (const event of events) {
        if (event.id) lastId = event.id;
        any = true;
        handle(event.data);
      }
      if (ended) {
        void reader.cancel();
        return any;
      }
    }
  };

  void (async () => {
    let failures = 0;
    while (!ended && !controller.signal.aborted) {
      try {
        // A stream that ends with nothing new counts as a failure, so a server that keeps closing it is not asked forever.
        failures = (await readOnce()) ? 0 : failures + 1;
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.status !== 0) {
          handlers.onError(error);
          return;
        }
        failures += 1;
      }
      if (ended || controller.signal.aborted) break;
      if (failures >= RECONNECTS) {
        handlers.onError(
          new ApiError(0, "Following the task stopped: the connection kept dropping. Reload the page to see where it is.", "stream_closed"),
        );
        return;
      }
      // Dropped before the end (a proxy, a restart): come back for what followed the last event.
      await new Promise((resolve) => setTimeout(resolve, 1000 * (failures + 1)));
    }
    if (ended && !controller.signal.aborted) handlers.onEnd();
  })();

  return () => controller.abort();
}
