/**
 * POST /v1/search: Critique's JSON face of the research run, and the same
 * events as server-sent events when the caller asks for text/event-stream.
 */
import { Elysia } from "elysia";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import type { Logger } from "../log.ts";
import type { RunEvents, SearchAnswer } from "../research/run/drain.ts";
import { answerSearch, checkSearchBody, runOf, startSearch, type RunDeps } from "../research/run/hold.ts";
import { faceOutcome, logOutcome } from "../research/run/outcome.ts";
import { SearchRequestBody, SearchResponseBody } from "./model.ts";
import { sseResponse } from "./sse.ts";

export function searchRoutes(auth: AuthDeps, runs: RunDeps, log: Logger) {
  return new Elysia({ prefix: "/v1" }).use(authenticated(auth)).post(
    "/search",
    async ({ body, request, call, server, set }) => {
      const meta = requestMeta(request);
      const streamed = (request.headers.get("accept") ?? "").includes("text/event-stream");
      const stop = new AbortController();
      let events: RunEvents;
      try {
        const research = checkSearchBody(runs, body);
        if (!streamed) {
          const { answer, usage } = await answerSearch(runs, research, runOf(call, { signal: request.signal }), meta.hear);
          await call.charge(usage);
          return answer;
        }
        // The stream starts once the run has its slot: until then the caller waits for the response's head. It outlives
        // this handler: its run tells the usage when it ends, under the stream's own route name.
        const signal = AbortSignal.any([request.signal, stop.signal]);
        events = await startSearch(runs, research, runOf(call, { signal, ended: call.streams("POST /v1/search (stream)") }));
      } catch (error) {
        // Before a stream starts, its failures are statuses too: the JSON answer, mapped as the streams map theirs.
        const outcome = faceOutcome(error, meta.id);
        logOutcome(log, meta.id, outcome, "search", call.span.traceId);
        meta.errorCode = outcome.code;
        set.status = outcome.status;
        Object.assign(set.headers, outcome.headers);
        return outcome.body as unknown as SearchAnswer;
      }
      server?.timeout(request, 0);
      const fail = (error: unknown) => {
        const outcome = faceOutcome(error, meta.id);
        logOutcome(log, meta.id, outcome, "search stream", call.span.traceId);
        return outcome.message;
      };
      // The schema types the JSON answer; a Response passes through Elysia untouched.
      return sseResponse(events, stop, fail, meta.id, () => call.written()) as unknown as SearchAnswer;
    },
    {
      body: SearchRequestBody,
      response: { 200: SearchResponseBody },
      detail: secured(
        {
          tags: ["Search"],
          summary: "Research a prompt: search, read, and answer with cited sources",
          description:
            "Answers with `{response, context, info}`. `[n]` markers in the response cite context entry n. With `Accept: text/event-stream` the same run streams as server-sent events (`context`, `response` deltas, `error`), each `data:` a JSON `{type, content}`; an `error` ends the stream, its content the JSON answer's detail with its code in parentheses. A run longer than the service deadline is a 504; time spent waiting for a run slot on a busy instance counts, and with the instance's queue full, or its runs too slow for this one to finish within the deadline, the call is a 503 `queue_full` with Retry-After.",
        },
        { billable: true },
      ),
    },
  );
}
