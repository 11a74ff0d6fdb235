import { t } from "elysia";

const DomainList = t.Array(t.String({ minLength: 1, maxLength: 2048 }), { maxItems: 200 });

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

export const ContextEntrySchema = t.Object({
  id: t.Integer({ minimum: 1 }),
  metadata: t.Object({ title: t.String(), url: t.String(), content: t.String({ description: "The passages of this source the answer was given." }) }),
});

export const SearchResponseBody = t.Object({
  response: t.Union([t.String(), t.Record(t.String(), t.Unknown())], { description: "The answer with [n] citations, or an object matching output_format." }),
  context: t.Array(ContextEntrySchema),
  info: t.Record(t.String(), t.Unknown(), { description: "token_usage, model, queries, timings_ms, providers, pages, image_analysed, notes." }),
});
