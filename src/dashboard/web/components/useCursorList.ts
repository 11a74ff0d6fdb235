/**
 * A newest-first list read a page at a time (tasks, webhook deliveries):
 * the first page loads with the page, "Load more" adds the page after
 * (its `next_cursor`), and a changed filter starts again from the top.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import type { CursorPage } from "../model.ts";
import { useLoad } from "./useLoad.ts";
import { useAction } from "./useAction.ts";

export interface CursorList<T> {
  items: T[] | null;
  loading: boolean;
  error: unknown;
  hasMore: boolean;
  more: () => void;
  loadingMore: boolean;
  reload: () => void;
  /** Puts a changed item in its place (an action's answer), without another call. */
  replace: (item: T) => void;
}

/** `path` has its query (filters, limit) but no cursor. */
export function useCursorList<T extends { id: string }>(path: string): CursorList<T> {
  const first = useLoad((signal) => api.get<CursorPage<T>>(path, { signal }), [path]);
  // The pages after the first, for the path they belong to: a new path drops them.
  const [later, setLater] = useState<{ path: string; items: T[]; cursor: string | null } | null>(null);
  const paging = useAction();
  const extra = later?.path === path ? later : null;
  const items = first.data ? [...first.data.data, ...(extra?.items ?? [])] : null;
  const cursor = extra ? extra.cursor : (first.data?.next_cursor ?? null);

  const more = () => {
    if (!cursor) return;
    void paging.run(async () => {
      const page = await api.get<CursorPage<T>>(`${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`);
      setLater({ path, items: [...(extra?.items ?? []), ...page.data], cursor: page.next_cursor });
    });
  };

  const replace = (item: T) => {
    if (first.data) first.set({ ...first.data, data: first.data.data.map((i) => (i.id === item.id ? item : i)) });
    if (extra) setLater({ ...extra, items: extra.items.map((i) => (i.id === item.id ? item : i)) });
  };

  return {
    items,
    loading: first.loading,
    error: first.error ?? paging.error,
    hasMore: cursor !== null,
    more,
    loadingMore: paging.busy,
    reload: () => {
      setLater(null);
      first.reload();
    },
    replace,
  };
}
