/**
 * POST /v1/search: Critique's JSON face of the research run, and the same
 * events as server-sent events when the caller asks for text/event-stream.
 */
import { Elysia } from "elysia";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import type { Logger } from "../log.ts";
import type { UsageRecorder } from "../usage/recorder.ts";
import { SearchRequestBody, SearchResponseBody } from "./model.ts";
import { faceOutcome, logOutcome } from "./outcome.ts";
import { checkSearchBody, collect, startRun, type RunEvents, type SearchFaceDeps } from "./run.ts";

const HEARTBEAT_MS = 15_000;

export function searchRoutes(auth: AuthDeps, face: SearchFaceDeps, usage: UsageRecorder, log: Logger) {
  return new Elysia({ prefix: "/v1" }).use(authenticated(auth)).post(
    "/search",
    async ({ body, request, caller, server, set }) => {
      const meta = requestMeta(request);
      const streamed = (request.headers.get("accept") ?? "").includes("text/event-stream");
      let events: RunEvents;
      try {
        events = await startRun(face, checkSearchBody(face, body), request.signal, meta.id);
        if (!streamed) {
          const result = await collect(events);
          meta.tokens = result.info.token_usage;
          return result;
        }
      } catch (error) {
        // Before a stream starts, its failures are statuses too: the JSON answer, mapped as the streams map theirs.
        const outcome = faceOutcome(error, meta.id);
        logOutcome(log, meta.id, outcome, "search");
        meta.errorCode = outcome.code;
        set.status = outcome.status;
        Object.assign(set.headers, outcome.headers);
        return outcome.body as unknown as Awaited<ReturnType<typeof collect>>;
      }
      // The stream outlives this handler: it records its own usage when it ends.
      meta.usageRecordedLater = true;
      server?.timeout(request, 0);
      const record = (status: number, tokens: number) =>
        usage.record({ caller, route: "POST /v1/search (stream)", status, tokens, requestId: meta.id, at: new Date() });
      const fail = (error: unknown) => {
        const outcome = faceOutcome(error, meta.id);
        logOutcome(log, meta.id, outcome, "search stream");
        return outcome;
      };
      const stream = new Response(sseStream(events, record, fail), {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no", "x-request-id": meta.id },
      });
      // The schema types the JSON answer; a Response passes through Elysia untouched.
      return stream as unknown as Awaited<ReturnType<typeof collect>>;
    },
    {
      body: SearchRequestBody,
      response: { 200: SearchResponseBody },
      detail: secured({
        tags: ["Search"],
        summary: "Research a prompt: search, read, and answer with cited sources",
        description:
          "Answers with `{response, context, info}`. `[n]` markers in the response cite context entry n. With `Accept: text/event-stream` the same run streams as server-sent events (`context`, `response` deltas, `error`), each `data:` a JSON `{type, content}`; an `error` ends the stream, its content the JSON answer's detail with its code in parentheses. A run longer than the service deadline is a 504.",
      }),
    },
  );
}

function sseStream(events: RunEvents, record: (status: number, tokens: number) => void, fail: (error: unknown) => { status: number; message: string }): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (type: string, content: unknown) => controller.enqueue(encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, content })}\n\n`));
      // Comments keep proxies and idle timers from closing a quiet stream.
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      try {
        for (;;) {
          const next = await events.next();
          if (next.done) {
            record(200, next.value.token_usage);
            break;
          }
          send(next.value.type, next.value.content);
        }
      } catch (error) {
        const outcome = fail(error);
        send("error", outcome.message);
        record(outcome.status, 0);
      } finally {
        clearInterval(heartbeat);
        controller.close();
      }
    },
    async cancel() {
      clearInterval(heartbeat);
      await events.return(undefined as never).catch(() => {});
    },
  });
}
