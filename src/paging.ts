/**
 * Lists a page at a time, newest first, by id: ids sort by creation time
 * (ids.ts), so a page starts after the last id of the one before, and a
 * query that reads one more row than the page holds tells whether more
 * follow. The answer is `{object: "list", data, has_more, next_cursor}`.
 */
import { ServiceError } from "./errors.ts";
import { type IdPrefix, looksLikeId } from "./ids.ts";

export const DEFAULT_PAGE = 20;

/** The cursor a caller passed, checked: only an id of the listed kind can be one. */
export function pageCursor(prefix: IdPrefix, cursor: string | undefined): string | undefined {
  if (cursor !== undefined && !looksLikeId(prefix, cursor))
    throw new ServiceError("bad_request", "cursor is not one this API gave: pass the next_cursor of the page before");
  return cursor;
}

/** The page of `rows` (read with `limit + 1`), and the cursor of the next one (null on the last). */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? items.at(-1)!.id : null };
}

export function listBody<T, V>(page: { items: T[]; nextCursor: string | null }, view: (item: T) => V) {
  return { object: "list" as const, data: page.items.map(view), has_more: page.nextCursor !== null, next_cursor: page.nextCursor };
}
