/**
 * Citation markers in a streamed answer must name sources that exist. The
 * filter sees the answer as it streams, holds back a possible marker until
 * it is complete, and drops `[n]` markers whose n is not a context id.
 */
export function citationFilter(validIds: ReadonlySet<number>) {
  let held = "";
  const clean = (text: string) => text.replace(/\[(\d{1,4})\]/g, (marker, id: string) => (validIds.has(Number(id)) ? marker : ""));
  return {
    push(delta: string): string {
      const text = held + delta;
      // Hold back an unfinished "[12" at the end; everything before it is safe to send.
      const open = /\[\d{0,4}$/.exec(text);
      held = open ? open[0] : "";
      return clean(open ? text.slice(0, open.index) : text);
    },
    flush(): string {
      const rest = clean(held);
      held = "";
      return rest;
    },
  };
}
