import { t } from "elysia";

// Blank entries are allowed and ignored (a trailing comma in a client's "a.com, b.com, ").
const DomainList = t.Array(t.String({ maxLength: 2048 }), { maxItems: 200 });

/** Critique's search body. `null` for an optional field means absent. */
export const SearchRequestBody = t.Object({
  prompt: t.String({ minLength: 1, maxLength: 20_000, description: "The question or research task, in natural language.", examples: ["What did the council decide about the river bridge?"] }),
  image: t.Optional(
    t.Nullable(
      t.String({
        maxLength: 14_000_000,
        description: "Base64 image data (raw or a data:image/...;base64 URL; PNG, JPEG, GIF or WebP) or an https:// URL ending in .jpg, .jpeg, .png, .gif, .webp or .bmp.",
      }),
    ),
  ),
  source_blacklist: t.Optional(t.Nullable(DomainList)),
  source_whitelist: t.Optional(t.Nullable(DomainList)),
  // Not t.Record: Elysia "normalises" a string or an array sent there into an object of its characters.
  // The shape is checked by the output_format rules instead (src/research/output-format.ts).
  output_format: t.Optional(
    t.Nullable(
      t.Unknown({
        description:
          'A JSON shape of type names (string, number, integer, boolean, array), nested objects, or one-item arrays of an item shape, e.g. {"name": "string", "products": [{"name": "string", "price": "number"}]}. The response is then an object matching it.',
      }),
    ),
  ),
});

/**
 * The WebSocket's one message: the same fields in a schema object of its own, because Elysia
 * sets `additionalProperties: false` in place on the schemas of its routes (to strip unknown
 * fields), and a shared object would start refusing unknown fields once the HTTP route compiled.
 */
export const SearchMessage = t.Object(SearchRequestBody.properties, { additionalProperties: true });

export const ContextEntrySchema = t.Object({
  id: t.Integer({ minimum: 1 }),
  metadata: t.Object({ title: t.String(), url: t.String(), content: t.String({ description: "The passages of this source the answer was given." }) }),
});

/** A run's `info`: the spec's `token_usage` (a number: the total) and our own members beside it. */
export function runInfoSchema(description: string) {
  return t.Object(
    {
      token_usage: t.Integer({ minimum: 0, description: "Tokens consumed by the run, in total." }),
      tokens: t.Object({ prompt: t.Integer({ minimum: 0 }), completion: t.Integer({ minimum: 0 }), total: t.Integer({ minimum: 0 }) }, { description: "The breakdown of token_usage." }),
    },
    { additionalProperties: true, description },
  );
}

export const SearchResponseBody = t.Object({
  response: t.Union([t.String(), t.Record(t.String(), t.Unknown())], { description: "The answer with [n] citations, or an object matching output_format." }),
  context: t.Array(ContextEntrySchema),
  info: runInfoSchema("token_usage and tokens, model, planner, queries, timings_ms, providers, pages, sources_found, image_analysed, notes."),
});
