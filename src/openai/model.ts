/**
 * OpenAI's chat completions body, as far as this service reads it. Unknown
 * members are kept, not refused: OpenAI's clients send many (user,
 * metadata, store, ...), and the ones that do not apply are ignored. The
 * bounds are the search body's (research/model.ts) where a value ends up
 * there, and small where it does not.
 */
import { Type, type Static } from "@sinclair/typebox";

const MAX_TEXT = 100_000;

const TextPart = Type.Object({ type: Type.Literal("text"), text: Type.String({ maxLength: MAX_TEXT }) }, { additionalProperties: true });
const ImagePart = Type.Object(
  {
    type: Type.Literal("image_url"),
    image_url: Type.Object(
      {
        url: Type.String({ maxLength: 14_000_000, description: "An https:// image URL or a data:image/...;base64 URL." }),
        detail: Type.Optional(Type.String({ maxLength: 16 })),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
export const ContentPart = Type.Union([TextPart, ImagePart]);

export const ChatMessage = Type.Object(
  {
    role: Type.Union([
      Type.Literal("system"),
      Type.Literal("developer"),
      Type.Literal("user"),
      Type.Literal("assistant"),
      Type.Literal("tool"),
    ]),
    content: Type.Optional(Type.Union([Type.String({ maxLength: MAX_TEXT }), Type.Array(ContentPart, { maxItems: 32 }), Type.Null()])),
    name: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
);
export type ChatMessage = Static<typeof ChatMessage>;

const Nullable = <T extends ReturnType<typeof Type.Boolean> | ReturnType<typeof Type.Integer> | ReturnType<typeof Type.Number>>(
  schema: T,
) => Type.Optional(Type.Union([schema, Type.Null()]));

export const ChatCompletionRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256, description: "`search`: the research run of POST /v1/search." }),
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: 256 }),
    stream: Nullable(Type.Boolean()),
    stream_options: Type.Optional(
      Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }), Type.Null()]),
    ),
    response_format: Type.Optional(
      Type.Union([
        Type.Object(
          {
            type: Type.Union([Type.Literal("text"), Type.Literal("json_object"), Type.Literal("json_schema")]),
            json_schema: Type.Optional(
              Type.Object(
                {
                  name: Type.Optional(Type.String({ maxLength: 256 })),
                  schema: Type.Optional(Type.Unknown()),
                  strict: Type.Optional(Type.Unknown()),
                },
                { additionalProperties: true },
              ),
            ),
          },
          { additionalProperties: true },
        ),
        Type.Null(),
      ]),
    ),
    // Refused when they would change the answer's meaning (routes.ts); accepted and ignored otherwise.
    n: Nullable(Type.Integer()),
    logprobs: Nullable(Type.Boolean()),
    top_logprobs: Nullable(Type.Integer()),
    tools: Type.Optional(Type.Unknown()),
    functions: Type.Optional(Type.Unknown()),
    temperature: Nullable(Type.Number()),
    top_p: Nullable(Type.Number()),
    seed: Nullable(Type.Integer()),
    max_tokens: Nullable(Type.Integer()),
    max_completion_tokens: Nullable(Type.Integer()),
  },
  { additionalProperties: true },
);
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;

const Usage = Type.Object(
  {
    prompt_tokens: Type.Integer({ minimum: 0 }),
    completion_tokens: Type.Integer({ minimum: 0 }),
    total_tokens: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: true },
);

/** The sources as Perplexity gives them: `[n]` is citations[n-1]. */
export const SourcesSchema = {
  citations: Type.Array(Type.String(), { description: "The sources' URLs: the marker [n] cites citations[n-1]." }),
  search_results: Type.Array(Type.Object({ title: Type.String(), url: Type.String() }, { additionalProperties: true })),
};

export const ChatCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal("chat.completion"),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          message: Type.Object(
            {
              role: Type.Literal("assistant"),
              content: Type.String({ description: "The answer with [n] markers, or with a response_format the JSON text." }),
              annotations: Type.Array(
                Type.Object(
                  {
                    type: Type.Literal("url_citation"),
                    url_citation: Type.Object({
                      url: Type.String(),
                      title: Type.String(),
                      start_index: Type.Integer(),
                      end_index: Type.Integer(),
                    }),
                  },
                  { additionalProperties: true },
                ),
              ),
            },
            { additionalProperties: true },
          ),
          finish_reason: Type.String(),
        },
        { additionalProperties: true },
      ),
    ),
    usage: Usage,
    ...SourcesSchema,
  },
  {
    additionalProperties: true,
    description: "A chat completion; with stream: true, server-sent chat.completion.chunks ending with data: [DONE].",
  },
);
