/**
 * The research run on the wire: Critique's search body, and the parts of a
 * run's answer that every face and endpoint call shares. TypeBox, so the
 * type the engine's request is parsed from, the validation and the OpenAPI
 * document are one thing (search/model.ts and endpoints/model.ts build on it).
 */
import { Type, type TSchema } from "@sinclair/typebox";

/** `null` for an optional field means absent (marked `nullable` as Elysia's t.Nullable marks it, for the OpenAPI document). */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()], { nullable: true });

// Blank entries are allowed and ignored (a trailing comma in a client's "a.com, b.com, ").
const DomainList = Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 200 });

/** Critique's search body. `null` for an optional field means absent. */
export const SearchRequestBody = Type.Object({
  prompt: Type.String({
    minLength: 1,
    maxLength: 20_000,
    description: "The question or research task, in natural language.",
    examples: ["What did the council decide about the river bridge?"],
  }),
  image: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 14_000_000,
        description:
          "Base64 image data (raw or a data:image/...;base64 URL; PNG, JPEG, GIF or WebP) or an https:// URL ending in .jpg, .jpeg, .png, .gif, .webp or .bmp.",
      }),
    ),
  ),
  source_blacklist: Type.Optional(Nullable(DomainList)),
  source_whitelist: Type.Optional(Nullable(DomainList)),
  // Not a record: Elysia "normalises" a string or an array sent there into an object of its characters.
  // The shape is checked by the output_format rules instead (output-format.ts).
  output_format: Type.Optional(
    Nullable(
      Type.Unknown({
        description:
          'A JSON shape of type names (string, number, integer, boolean, array), nested objects, or one-item arrays of an item shape, e.g. {"name": "string", "products": [{"name": "string", "price": "number"}]}. The response is then an object matching it.',
      }),
    ),
  ),
});

export const ContextEntrySchema = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  metadata: Type.Object({
    title: Type.String(),
    url: Type.String(),
    content: Type.String({ description: "The passages of this source the answer was given." }),
  }),
});

/** A run's `info`: the spec's `token_usage` (a number: the total) and our own members beside it. */
export function runInfoSchema(description: string) {
  return Type.Object(
    {
      token_usage: Type.Integer({ minimum: 0, description: "Tokens consumed by the run, in total." }),
      tokens: Type.Object(
        { prompt: Type.Integer({ minimum: 0 }), completion: Type.Integer({ minimum: 0 }), total: Type.Integer({ minimum: 0 }) },
        { description: "The breakdown of token_usage." },
      ),
    },
    { additionalProperties: true, description },
  );
}
