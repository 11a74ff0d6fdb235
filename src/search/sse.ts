/**
 * The SSE face's body: each event as `event: <type>` with a JSON
 * `{type, content}`, comments as heartbeats, and a failed run's one `error`
 * message before the end. The run wrapper records the stream's usage.
 */
import { eventStreamResponse } from "../http/event-stream.ts";
import { drain, type RunEvents } from "../research/run/drain.ts";
import type { FaceMessage } from "../research/run/outcome.ts";

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
  return eventStreamResponse(
    stop,
    async (stream) => {
      const send = (message: FaceMessage) =>
        stream.write(`event: ${message.type}\ndata: ${JSON.stringify({ type: message.type, content: message.content })}\n\n`);
      try {
        await drain(events, send);
        // The stream ends once its usage is written: a stream closed is an answer given, and billed.
        await written();
      } catch (error) {
        const text = fail(error);
        if (stream.open()) send({ type: "error", content: text });
      }
    },
    { "x-request-id": requestId },
  );
}
