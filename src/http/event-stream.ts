/**
 * A server-sent event stream that a face writes: comments as heartbeats
 * (so proxies and idle timers do not close a quiet stream), writes refused
 * once the reader has gone (so the run behind them stops), the reader's
 * cancel aborting `stop` (the run's own signal), and the stream closed when
 * `body` ends. The search face and both OpenAI faces write theirs here.
 */
import { ServiceError } from "../errors.ts";
import { gaugeFrom } from "../observe/metrics.ts";

const HEARTBEAT_MS = 15_000;

/** Streams of this process open now, from their start to their end or the reader's cancel: open_streams{kind="sse"}. */
let openStreams = 0;
gaugeFrom("open_streams", () => openStreams, { kind: "sse" });

export interface EventWriter {
  /** Writes text to the stream; throws once the reader has gone. */
  write(text: string): void;
  /** Whether the reader is still there: a failure's last message is written only then. */
  open(): boolean;
}

export function eventStreamResponse(
  stop: AbortController,
  body: (writer: EventWriter) => Promise<void>,
  headers: Record<string, string> = {},
): Response {
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let open = true;
  let counted = false;
  const uncount = () => {
    if (counted) openStreams--;
    counted = false;
  };
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      openStreams++;
      counted = true;
      const writer: EventWriter = {
        write(text) {
          if (!open) throw new ServiceError("bad_request", "the caller went away");
          controller.enqueue(encoder.encode(text));
        },
        open: () => open,
      };
      heartbeat = setInterval(() => open && controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      try {
        await body(writer);
      } finally {
        clearInterval(heartbeat);
        uncount();
        if (open) controller.close();
      }
    },
    cancel() {
      uncount();
      open = false;
      clearInterval(heartbeat);
      stop.abort();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no", ...headers },
  });
}
