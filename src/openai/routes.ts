/**
 * The OpenAI-compatible face: POST /v1/chat/completions and the models
 * list, so OpenAI's SDKs and the frameworks built on them call the research
 * run with a base URL and a key (X-API-Key or `Authorization: Bearer`).
 * The model `search` is the run of POST /v1/search: the same limits, plan
 * bucket, queue, deadline, usage and billing. Errors on these routes are
 * in OpenAI's shape (errors.ts, applied by the app's error mapping).
 */
import { Elysia, t } from "elysia";
import type { Clock } from "../clock.ts";
import { ServiceError } from "../errors.ts";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { requestMeta } from "../http/request-context.ts";
import type { Logger } from "../log.ts";
import { answerSearch, checkSearchBody, runOf, startSearch, type RunDeps } from "../research/run/hold.ts";
import { faceOutcome, logOutcome } from "../research/run/outcome.ts";
import { chatCompletion } from "./completion.ts";
import { openAiOutcome, requestLimitHeaders } from "./errors.ts";
import { questionOf } from "./messages.ts";
import { ChatCompletionRequest } from "./model.ts";
import { outputFormatOf } from "./response-format.ts";
import { completionStream } from "./stream.ts";

/** The models this face serves. */
const MODELS = [{ id: "search", object: "model" as const, created: 1_767_225_600, owned_by: "agentic-search" }];

const Model = t.Object({ id: t.String(), object: t.Literal("model"), created: t.Integer(), owned_by: t.String() });

/** A parameter that would change what the answer means, and cannot be honoured: a 400 naming it. */
function refused(param: string, message: string): ServiceError {
  return new ServiceError("bad_request", message, { body: { param } });
}

function refuseUnsupported(body: ChatCompletionRequest): void {
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw refused("n", "n must be 1: a research run gives one answer");
  if ((Array.isArray(body.tools) && body.tools.length > 0) || (Array.isArray(body.functions) && body.functions.length > 0))
    throw refused(
      Array.isArray(body.tools) && body.tools.length > 0 ? "tools" : "functions",
      "tools are not supported: the model answers from its own search",
    );
  if (body.logprobs === true || (body.top_logprobs ?? 0) > 0) throw refused("logprobs", "logprobs are not available for research answers");
  if (body.model !== "search")
    throw new ServiceError("not_found", `the model ${JSON.stringify(body.model.slice(0, 100))} does not exist; GET /v1/models lists them`, {
      body: { param: "model" },
    });
}

export function openAiRoutes(auth: AuthDeps, runs: RunDeps, log: Logger, clock: Clock) {
  return new Elysia({ prefix: "/v1" })
    .use(authenticated(auth, { bearer: true }))
    .onAfterHandle(({ set }) => {
      Object.assign(set.headers, requestLimitHeaders(set.headers));
    })
    .get("/models", () => ({ object: "list" as const, data: MODELS }), {
      response: { 200: t.Object({ object: t.Literal("list"), data: t.Array(Model) }) },
      detail: secured({
        tags: ["OpenAI-compatible"],
        summary: "The models of the OpenAI-compatible face",
        description: "In OpenAI's list shape. `search` is the research run of POST /v1/search.",
      }),
    })
    .get(
      "/models/:model",
      ({ params }) => {
        const model = MODELS.find((m) => m.id === params.model);
        if (!model)
          throw new ServiceError("not_found", `the model ${JSON.stringify(params.model.slice(0, 100))} does not exist`, {
            body: { param: "model" },
          });
        return model;
      },
      {
        params: t.Object({ model: t.String({ maxLength: 256 }) }),
        response: { 200: Model },
        detail: secured({ tags: ["OpenAI-compatible"], summary: "One model of the OpenAI-compatible face" }),
      },
    )
    .post(
      "/chat/completions",
      async ({ body, request, call, server, set }) => {
        const meta = requestMeta(request);
        const identity = { id: `chatcmpl-${meta.id}`, created: Math.floor(clock.now() / 1000), model: body.model };
        refuseUnsupported(body);
        const question = questionOf(body.messages);
        const outputFormat = outputFormatOf(body.response_format);
        const research = checkSearchBody(runs, {
          prompt: question.prompt,
          ...(question.image ? { image: question.image } : {}),
          ...(outputFormat !== undefined ? { output_format: outputFormat } : {}),
        });
        if (body.stream !== true) {
          const { answer, usage } = await answerSearch(runs, research, runOf(call, { signal: request.signal }), meta.hear);
          await call.charge(usage);
          return chatCompletion(identity, answer);
        }
        const stop = new AbortController();
        const signal = AbortSignal.any([request.signal, stop.signal]);
        // The stream starts once the run has its slot; its failures before then are statuses, in OpenAI's shape.
        const events = await startSearch(
          runs,
          research,
          runOf(call, { signal, ended: call.streams("POST /v1/chat/completions (stream)") }),
        );
        server?.timeout(request, 0);
        set.headers["x-request-id"] = meta.id;
        const response = completionStream(identity, events, stop, {
          includeUsage: body.stream_options?.include_usage === true,
          written: () => call.written(),
          fail(error) {
            const outcome = faceOutcome(error, meta.id);
            logOutcome(log, meta.id, outcome, "chat completion stream");
            const said = openAiOutcome(outcome).body.error as { message: string; type: string; code: string | null };
            return { message: said.message, type: said.type, code: said.code };
          },
        });
        // A Response passes through Elysia as it is: the limit's headers go on it here.
        Object.assign(set.headers, requestLimitHeaders(set.headers));
        for (const [name, value] of Object.entries(set.headers)) if (typeof value === "string") response.headers.set(name, value);
        return response as unknown as ReturnType<typeof chatCompletion>;
      },
      {
        body: ChatCompletionRequest,
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
    );
}
