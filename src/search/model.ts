import { t } from "elysia";
import { ContextEntrySchema, runInfoSchema, SearchRequestBody } from "../research/model.ts";

export { SearchRequestBody };

/**
 * The WebSocket's one message: the same fields in a schema object of its own, because Elysia
 * sets `additionalProperties: false` in place on the schemas of its routes (to strip unknown
 * fields), and a shared object would start refusing unknown fields once the HTTP route compiled.
 */
export const SearchMessage = t.Object(SearchRequestBody.properties, { additionalProperties: true });

export const SearchResponseBody = t.Object({
  response: t.Union([t.String(), t.Record(t.String(), t.Unknown())], {
    description: "The answer with [n] citations, or an object matching output_format.",
  }),
  context: t.Array(ContextEntrySchema),
  info: runInfoSchema(
    "token_usage and tokens, model, planner, queries, timings_ms, providers, pages, sources_found, image_analysed, notes.",
  ),
});
