/**
 * The OpenAI-compatible face: POST /v1/chat/completions, POST /v1/responses
 * and the models list, so OpenAI's SDKs and the frameworks built on them call the research
 * run with a base URL and a key (X-API-Key or `Authorization: Bearer`).
 * The model `search` is the run of POST /v1/search: the same limits, plan
 * bucket, queue, deadline, usage and billing. Errors on these routes are
 * in OpenAI's shape (errors.ts, applied by the app's error mapping).
 */
import { Elysia, t } from "elysia";
import type { Clock } from "../clock.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import type { Logger } from "../log.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import type { RunDeps } from "../research/run/hold.ts";
import { faceOutcome, logOutcome } from "../research/run/outcome.ts";
import { chatCompletion } from "./completion.ts";
import { openAiOutcome, requestLimitHeaders } from "./errors.ts";
import { ChatCompletion, ChatCompletionRequest } from "./model.ts";
import { outputFormatOf, textFormatOf } from "./response-format.ts";
import { chatMessagesOf, responseObject, responseStream } from "./responses.ts";
import { ResponseObject, ResponseRequest } from "./responses-model.ts";
import { refuseUnsupported, refuseUnsupportedResponse } from "./refusals.ts";
import { callerModel, callerModels, modelRef } from "./models.ts";
import { faceRun } from "./run.ts";
import { completionStream } from "./stream.ts";

const Model = t.Object({ id: t.String(), object: t.Literal("model"), created: t.Integer(), owned_by: t.String() });

/** A stream passes through Elysia as it is: the request id and the limit's headers (ours and OpenAI's) go on it here. */
function withHeaders(response: Response, headers: Record<string, unknown>, requestId: string): Response {
  const sent = { ...headers, "x-request-id": requestId } as Record<string, string | number | undefined>;
  for (const [name, value] of Object.entries({ ...sent, ...requestLimitHeaders(sent) }))
    if (typeof value === "string") response.headers.set(name, value);
  return response;
}

/** The failure a stream's last event carries, in OpenAI's words; logged with the request id. */
function streamFailure(log: Logger, requestId: string, face: string) {
  return (error: unknown) => {
    const outcome = faceOutcome(error, requestId);
    logOutcome(log, requestId, outcome, face);
    const said = openAiOutcome(outcome).body.error as { message: string; type: string; code: string | null };
    return { message: said.message, type: said.type, code: said.code };
  };
}

export function openAiRoutes(auth: AuthDeps, runs: RunDeps, endpoints: EndpointsContext, log: Logger, clock: Clock) {
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth, { bearer: true }))
    .onAfterHandle(({ set }) => {
      Object.assign(set.headers, requestLimitHeaders(set.headers));
    })
    .get("/models", async ({ caller }) => ({ object: "list" as const, data: await callerModels(endpoints, caller.accountId) }), {
      response: { 200: t.Object({ object: t.Literal("list"), data: t.Array(Model) }) },
      detail: secured({
        tags: ["OpenAI-compatible"],
        summary: "The models of the OpenAI-compatible face",
        description:
          "In OpenAI's list shape: `search` (the research run of POST /v1/search), `endpoint:<stub>` for each of your designed endpoints (its live version) and `published:<public_stub>` for each published endpoint you subscribed to.",
      }),
    })
    .get("/models/:model", ({ caller, params }) => callerModel(endpoints, caller.accountId, params.model), {
      params: t.Object({ model: t.String({ maxLength: 256 }) }),
      response: { 200: Model },
      detail: secured({ tags: ["OpenAI-compatible"], summary: "One model of the OpenAI-compatible face" }),
    })
    .post(
      "/chat/completions",
      async ({ body, request, call, server, set }) => {
        const meta = requestMeta(request);
        const identity = { id: `chatcmpl-${meta.id}`, created: Math.floor(clock.now() / 1000), model: body.model };
        refuseUnsupported(body);
        const face = { runs, endpoints, call, request, ...(meta.hear ? { hear: meta.hear } : {}) };
        const format = outputFormatOf(body.response_format);
        const run = await faceRun(
          face,
          modelRef(body.model),
          body.messages,
          format,
          body.stream === true ? "POST /v1/chat/completions (stream)" : null,
        );
        if ("answer" in run) return chatCompletion(identity, run.answer);
        server?.timeout(request, 0);
        const response = completionStream(identity, run.events, run.stop, {
          includeUsage: body.stream_options?.include_usage === true,
          written: run.written,
          fail: streamFailure(log, meta.id, "chat completion stream"),
        });
        return withHeaders(response, set.headers, meta.id) as unknown as ReturnType<typeof chatCompletion>;
      },
      {
        body: ChatCompletionRequest,
        response: { 200: ChatCompletion },
        detail: secured(
          {
            tags: ["OpenAI-compatible"],
            summary: "Research a question as an OpenAI chat completion",
            description:
              "OpenAI's chat completions body with `model: \"search\"`: the last user message is the question (its image part the search's image), earlier messages are context. `response_format` json_schema or json_object makes the content JSON text. The answer carries `citations` and `search_results` (as Perplexity's) and `url_citation` annotations at its `[n]` markers. `stream: true` sends `chat.completion.chunk`s and `data: [DONE]`. temperature, top_p, seed and max_tokens are ignored; n > 1, tools and logprobs are refused. Errors are in OpenAI's shape.",
          },
          { billable: true },
        ),
      },
    )
    .post(
      "/responses",
      async ({ body, request, call, server, set }) => {
        const meta = requestMeta(request);
        const identity = {
          id: `resp_${meta.id}`,
          created: Math.floor(clock.now() / 1000),
          model: body.model,
          format: body.text ?? undefined,
        };
        refuseUnsupportedResponse(body);
        const face = { runs, endpoints, call, request, ...(meta.hear ? { hear: meta.hear } : {}) };
        const format = textFormatOf(body.text?.format);
        const run = await faceRun(
          face,
          modelRef(body.model),
          chatMessagesOf(body),
          format,
          body.stream === true ? "POST /v1/responses (stream)" : null,
        );
        if ("answer" in run) return responseObject(identity, run.answer);
        server?.timeout(request, 0);
        const response = responseStream(identity, run.events, run.stop, {
          written: run.written,
          fail: streamFailure(log, meta.id, "response stream"),
        });
        return withHeaders(response, set.headers, meta.id) as unknown as ReturnType<typeof responseObject>;
      },
      {
        body: ResponseRequest,
        response: { 200: ResponseObject },
        detail: secured(
          {
            tags: ["OpenAI-compatible"],
            summary: "Research a question as an OpenAI response (Responses API)",
            description:
              "OpenAI's Responses body with `model: \"search\"`: `input` as a string or message items (input_text, input_image), `instructions` as context, `text.format` json_schema or json_object for a JSON answer. `output` holds one assistant message whose output_text carries url_citation annotations at the `[n]` markers; `output_text`, `citations` and `search_results` are at the top level. `stream: true` sends the Responses events, from response.created to response.completed. tools, previous_response_id and background are refused. Errors are in OpenAI's shape.",
          },
          { billable: true },
        ),
      },
    );
}
