import { describe, expect, test } from "bun:test";
import { parseEvents } from "./task-stream.ts";

describe("parseEvents (a task's server-sent events as they arrive in pieces)", () => {
  test("complete events come out with their id and data; an unfinished one waits in the rest", () => {
    const { events, rest } = parseEvents('id: 1\nevent: status\ndata: {"type":"status","status":"queued"}\n\nid: 2\nevent: cont');
    expect(events).toEqual([{ id: "1", data: '{"type":"status","status":"queued"}' }]);
    expect(rest).toBe("id: 2\nevent: cont");
    const next = parseEvents(`${rest}ext\ndata: {"type":"context"}\n\n`);
    expect(next.events).toEqual([{ id: "2", data: '{"type":"context"}' }]);
    expect(next.rest).toBe("");
  });

  test("heartbeat comments are skipped, CRLF reads as LF, and several data lines join with a newline", () => {
    const { events } = parseEvents(': keep-alive\r\n\r\ndata: a\r\ndata: b\r\n\r\nevent: status\ndata: {"status":"succeeded"}\n\n');
    expect(events).toEqual([
      { id: null, data: "a\nb" },
      { id: null, data: '{"status":"succeeded"}' },
    ]);
  });
});
