/**
 * OpenAI's Responses body, as far as this service reads it: `input` as a
 * string or message items (text and image parts), `instructions`, `text.format`
 * for JSON answers, `stream`. Unknown members are kept and ignored, as on
 * chat completions; the bounds are the same.
 */
import { Type, type Static } from "@sinclair/typebox";
import { SourcesSchema } from "./model.ts";

const MAX_TEXT = 100_000;

const InputText = Type.Object(
  { type: Type.Literal("input_text"), text: Type.String({ maxLength: MAX_TEXT }) },
  { additionalProperties: true },
);
/** An assistant turn given back as input carries its text as output_text. */
const OutputText = Type.Object(
  { type: Type.Literal("output_text"), text: Type.String({ maxLength: MAX_TEXT }) },
  { additionalProperties: true },
);
const InputImage = Type.Object(
  {
    type: Type.Literal("input_image"),
    image_url: Type.Optional(Type.String({ maxLength: 14_000_000 })),
    detail: Type.Optional(Type.String({ maxLength: 16 })),
  },
  { additionalProperties: true },
);

export const InputMessage = Type.Object(
  {
    type: Type.Optional(Type.Literal("message")),
    role: Type.Union([Type.Literal("system"), Type.Literal("developer"), Type.Literal("user"), Type.Literal("assistant")]),
    content: Type.Union([
      Type.String({ maxLength: MAX_TEXT }),
      Type.Array(Type.Union([InputText, OutputText, InputImage]), { maxItems: 32 }),
    ]),
  },
  { additionalProperties: true },
);
export type InputMessage = Static<typeof InputMessage>;

const Format = Type.Union([
  Type.Object({ type: Type.Literal("text") }, { additionalProperties: true }),
  Type.Object({ type: Type.Literal("json_object") }, { additionalProperties: true }),
  Type.Object(
    {
      type: Type.Literal("json_schema"),
      name: Type.Optional(Type.String({ maxLength: 256 })),
      schema: Type.Unknown(),
      strict: Type.Optional(Type.Unknown()),
    },
    { additionalProperties: true },
  ),
]);

export const ResponseRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256, description: "`search`: the research run of POST /v1/search." }),
    input: Type.Union([Type.String({ minLength: 1, maxLength: MAX_TEXT }), Type.Array(InputMessage, { minItems: 1, maxItems: 256 })]),
    instructions: Type.Optional(Type.Union([Type.String({ maxLength: MAX_TEXT }), Type.Null()])),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    text: Type.Optional(Type.Union([Type.Object({ format: Type.Optional(Format) }, { additionalProperties: true }), Type.Null()])),
    // Refused when they would change the answer's meaning (responses.ts); the sampling ones are accepted and ignored.
    tools: Type.Optional(Type.Unknown()),
    previous_response_id: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
    background: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    temperature: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    top_p: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    max_output_tokens: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  },
  { additionalProperties: true },
);
export type ResponseRequest = Static<typeof ResponseRequest>;

export const ResponseObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal("response"),
    created_at: Type.Integer(),
    status: Type.String(),
    model: Type.String(),
    output: Type.Array(
      Type.Object(
        {
          type: Type.Literal("message"),
          role: Type.Literal("assistant"),
          content: Type.Array(
            Type.Object(
              {
                type: Type.Literal("output_text"),
                text: Type.String(),
                annotations: Type.Array(
                  Type.Object(
                    {
                      type: Type.Literal("url_citation"),
                      url: Type.String(),
                      title: Type.String(),
                      start_index: Type.Integer(),
                      end_index: Type.Integer(),
                    },
                    { additionalProperties: true },
                  ),
                ),
              },
              { additionalProperties: true },
            ),
          ),
        },
        { additionalProperties: true },
      ),
    ),
    output_text: Type.String(),
    usage: Type.Object(
      {
        input_tokens: Type.Integer({ minimum: 0 }),
        output_tokens: Type.Integer({ minimum: 0 }),
        total_tokens: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: true },
    ),
    ...SourcesSchema,
  },
  {
    additionalProperties: true,
    description: "A response (OpenAI's Responses API); with stream: true, the Responses events as server-sent events.",
  },
);
