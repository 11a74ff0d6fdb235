/**
 * Reading a run's events: one loop for the streams (each event to the
 * caller as it comes), the JSON answer and a graph's search nodes (the
 * events gathered into Critique's `{response, context, info}`).
 */
import type { RunInfo } from "../engine.ts";
import type { ContextEntry, ResearchEvent } from "../types.ts";

/** A run's events; the generator's return value is the run's info. */
export type RunEvents = AsyncGenerator<ResearchEvent, RunInfo>;

export interface SearchAnswer {
  response: string | Record<string, unknown>;
  context: ContextEntry[];
  info: RunInfo;
}

/**
 * Hands each event to `onEvent`, awaited, so a slow reader slows the run
 * instead of growing buffers. A reader that fails (a socket that closed)
 * stops the run, which then ends as a caller that went away (hold.ts).
 */
export async function drain(events: RunEvents, onEvent: (event: ResearchEvent) => void | Promise<void>): Promise<RunInfo> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
    try {
      await onEvent(next.value);
    } catch (error) {
      await events.return(undefined as never).catch(() => {});
      throw error;
    }
  }
}

/** Drains a run into Critique's JSON body: text deltas joined, or the one structured object. `hear` sees each event as it comes. */
export async function collect(events: RunEvents, hear?: (event: ResearchEvent) => void): Promise<SearchAnswer> {
  let text = "";
  let object: Record<string, unknown> | null = null;
  let context: ContextEntry[] = [];
  const info = await drain(events, (event) => {
    hear?.(event);
    if (event.type === "context") context = event.content;
    else if (typeof event.content === "string") text += event.content;
    else object = event.content;
  });
  return { response: object ?? text, context, info };
}
