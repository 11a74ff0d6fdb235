/**
 * The schemas of a list a page at a time (src/paging.ts): its body,
 * `{object: "list", data, has_more, next_cursor}`, and its query's `limit`
 * and `cursor`. Elysia's t, whose t.Integer coerces the query string's text.
 */
import { type TSchema, t } from "elysia";

export function listOf<T extends TSchema>(item: T) {
  return t.Object({
    object: t.Literal("list"),
    data: t.Array(item),
    has_more: t.Boolean(),
    next_cursor: t.Union([t.String({ description: "Pass as `cursor` for the next page; null on the last." }), t.Null()]),
  });
}

/** `limit` and `cursor` for a list of `what` ("Tasks"), newest first. */
export function pageQuery(what: string) {
  return {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: `${what} per page, newest first (default 20).` })),
    cursor: t.Optional(t.String({ maxLength: 64, description: "The `next_cursor` of the page before." })),
  };
}
