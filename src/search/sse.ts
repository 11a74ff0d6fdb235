/**
 * The SSE face's body: each event as `event: <type>` with a JSON
 * `{type, content}`, comments as heartbeats, and a failed run's one `error`
 * message before the end. The run wrapper records the stream's usage.
 */
import { ServiceError } from "../errors.ts";
import { drain, type RunEvents } from "../research/run/drain.ts";
import type { FaceMessage } from "../research/run/outcome.ts";

const HEARTBEAT_MS = 15_000;

/**
 * `stop` is the run's own signal: the reader cancelling the stream stops the
 * run as a caller that went away. `fail` maps and logs a failure, and gives
 * the `error` message's text. `written` resolves once the run's usage is
 * written: the stream closes only then (or ends with an error when it fails).
 */
export function sseResponse(
  events: RunEvents,
  stop: AbortController,
  fail: (error: unknown) => string,
  requestId: string,
  written: () => Promise<void>,
): Response {
  return new Response(sseStream(events, stop, fail, written), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "x-request-id": requestId,
    },
  });
}

function sseStream(
  events: RunEvents,
  stop: AbortController,
  fail: (error: unknown) => string,
  written: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let open = true;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (text: string) => {
        if (!open) throw new ServiceError("bad_request", "the caller went away");
        controller.enqueue(encoder.encode(text));
      };
      const send = (message: FaceMessage) =>
        write(`event: ${message.type}\ndata: ${JSON.stringify({ type: message.type, content: message.content })}\n\n`);
      // Comments keep proxies and idle timers from closing a quiet stream.
      heartbeat = setInterval(() => open && controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      try {
        await drain(events, send);
        // The stream ends once its usage is written: a stream closed is an answer given, and billed.
        await written();
      } catch (error) {
        const text = fail(error);
        if (open) send({ type: "error", content: text });
      } finally {
        clearInterval(heartbeat);
        if (open) controller.close();
      }
    },
    cancel() {
      open = false;
      clearInterval(heartbeat);
      stop.abort();
    },
  });
}
