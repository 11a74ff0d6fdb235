/**
 * Steady load on a fleet through its balancer, as the rolling-deploy test
 * and `npm run bench:fleet` apply it: searches and cheap calls
 * (GET /v1/account) each at a fixed rate, and a few streams (WebSocket and
 * SSE searches) kept open one after another. Every call carries a request id
 * of its own (x-request-id), so its usage row can be found; each is recorded
 * with when it started, how long it took, the instance that answered, and
 * whether it was answered in full: a search's 200 with its answer, a
 * stream's whole run (`context`, the answer, and its normal end).
 */
import { INSTANCE_HEADER } from "./haproxy.ts";
import { sseMessages } from "./sse.ts";
import { openSocket } from "./websocket.ts";

export type CallKind = "search" | "cheap" | "websocket" | "sse";

export interface CallRecord {
  kind: CallKind;
  requestId: string;
  /** Milliseconds after the load started. */
  startedAt: number;
  ms: number;
  /** The HTTP status (a stream's opening: 200, or 101 for a WebSocket); 0 when no answer came at all. */
  status: number;
  /** Answered in full, as asked. */
  complete: boolean;
  /** Billed when answered: the searches and both streams. */
  billable: boolean;
  instance: string | null;
  /** What went wrong, when it did: a status and error code, a stream's last message, a connection error. */
  problem?: string;
}

export interface LoadShape {
  searchesPerSecond: number;
  cheapPerSecond: number;
  websockets: number;
  sse: number;
  searchPrompt: string;
  /** The streams' question: one the providers answer slowly keeps a stream open across a restart. */
  streamPrompt: string;
}

export interface Load {
  /** Milliseconds since the load started: the clock of CallRecord.startedAt. */
  now(): number;
  records: CallRecord[];
  /** Resolves with the next call to end that matches (the moment it ends: a kill can follow an answer at once). */
  next(match: (record: CallRecord) => boolean): Promise<CallRecord>;
  /** Stops starting calls and waits for those under way; resolves with every record. */
  stop(): Promise<CallRecord[]>;
}

const STREAM_TIMEOUT_MS = 90_000;

export function startLoad(url: string, apiKey: string, shape: LoadShape): Load {
  const origin = performance.now();
  const now = () => performance.now() - origin;
  const records: CallRecord[] = [];
  const waiters = new Set<{ match: (record: CallRecord) => boolean; resolve: (record: CallRecord) => void }>();
  const pending = new Set<Promise<void>>();
  let stopped = false;
  let sequence = 0;
  const runId = crypto.randomUUID().slice(0, 8);

  const measure = async (
    kind: CallKind,
    billable: boolean,
    call: (requestId: string) => Promise<Omit<CallRecord, "kind" | "requestId" | "startedAt" | "ms" | "billable">>,
  ) => {
    const requestId = `load-${runId}-${kind}-${++sequence}`;
    const startedAt = now();
    let outcome: Omit<CallRecord, "kind" | "requestId" | "startedAt" | "ms" | "billable">;
    try {
      outcome = await call(requestId);
    } catch (error) {
      outcome = { status: 0, complete: false, instance: null, problem: (error as Error).message };
    }
    const record: CallRecord = { kind, requestId, startedAt, ms: now() - startedAt, billable, ...outcome };
    records.push(record);
    for (const waiter of waiters)
      if (waiter.match(record)) {
        waiters.delete(waiter);
        waiter.resolve(record);
      }
  };
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  const headers = (requestId: string, extra: Record<string, string> = {}) => ({ "X-API-Key": apiKey, "x-request-id": requestId, ...extra });
  const refusal = async (response: Response) => `${response.status} ${JSON.stringify(await response.json().catch(() => null))}`;

  const search = () =>
    measure("search", true, async (requestId) => {
      const response = await fetch(`${url}/v1/search`, {
        method: "POST",
        headers: headers(requestId, { "content-type": "application/json" }),
        body: JSON.stringify({ prompt: shape.searchPrompt }),
      });
      const instance = response.headers.get(INSTANCE_HEADER);
      if (response.status !== 200) return { status: response.status, complete: false, instance, problem: await refusal(response) };
      const body = (await response.json().catch((error: Error) => ({ cut: error.message }))) as { response?: unknown; cut?: string };
      return { status: 200, complete: typeof body.response === "string", instance, problem: body.cut && `cut: ${body.cut}` };
    });

  const cheap = () =>
    measure("cheap", false, async (requestId) => {
      const response = await fetch(`${url}/v1/account`, { headers: headers(requestId) });
      const instance = response.headers.get(INSTANCE_HEADER);
      if (response.status !== 200) return { status: response.status, complete: false, instance, problem: await refusal(response) };
      await response.arrayBuffer();
      return { status: 200, complete: true, instance };
    });

  const sse = () =>
    measure("sse", true, async (requestId) => {
      const response = await fetch(`${url}/v1/search`, {
        method: "POST",
        headers: headers(requestId, { "content-type": "application/json", accept: "text/event-stream" }),
        body: JSON.stringify({ prompt: shape.streamPrompt }),
        signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
      });
      const instance = response.headers.get(INSTANCE_HEADER);
      if (response.status !== 200) return { status: response.status, complete: false, instance, problem: await refusal(response) };
      // A stream cut short throws here (its connection reset), or ends without its answer.
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        return { status: 200, complete: false, instance, problem: `cut: ${(error as Error).message}` };
      }
      const messages = sseMessages(text);
      const error = messages.find((m) => m.type === "error");
      const whole = !error && messages[0]?.type === "context" && messages.some((m) => m.type === "response");
      return {
        status: 200,
        complete: whole,
        instance,
        problem: whole ? undefined : `ended with ${JSON.stringify(messages.at(-1) ?? null)}`,
      };
    });

  const websocket = () =>
    measure("websocket", true, async (requestId) => {
      const run = await openSocket(`${url.replace("http", "ws")}/v1/ws/search`, {
        headers: headers(requestId),
        send: JSON.stringify({ prompt: shape.streamPrompt }),
        timeoutMs: STREAM_TIMEOUT_MS,
      });
      const error = run.messages.find((m) => m.type === "error");
      const whole = !error && run.closeCode === 1000 && run.closeReason === "done" && run.messages[0]?.type === "context";
      return {
        // A refused upgrade never opens (its status is not to be had from a WebSocket client): 0.
        status: run.opened ? 101 : 0,
        complete: whole,
        instance: null,
        problem: whole
          ? undefined
          : `closed ${run.closeCode} ${run.closeReason ?? ""} after ${JSON.stringify(run.messages.at(-1) ?? null)}`,
      };
    });

  const paced = (perSecond: number, call: () => Promise<void>) => {
    if (perSecond <= 0) return undefined;
    return setInterval(() => track(call()), 1000 / perSecond);
  };
  const timers = [paced(shape.searchesPerSecond, search), paced(shape.cheapPerSecond, cheap)];
  /** A stream slot: one stream after another until the load stops. */
  const slot = async (open: () => Promise<void>) => {
    while (!stopped) await open();
  };
  const slots = [...Array.from({ length: shape.websockets }, () => slot(websocket)), ...Array.from({ length: shape.sse }, () => slot(sse))];

  return {
    now,
    records,
    next: (match) => new Promise((resolve) => waiters.add({ match, resolve })),
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.all(slots);
      while (pending.size) await Promise.all(pending);
      return records;
    },
  };
}

/** Calls that were not answered in full: refused, failed, or cut short. */
export function failures(records: CallRecord[]): CallRecord[] {
  return records.filter((r) => !r.complete);
}

export const isStream = (record: CallRecord) => record.kind === "websocket" || record.kind === "sse";

/** Streams that opened and then ended before their run did (a stream refused at its opening is a failure, not a cut). */
export function streamsCut(records: CallRecord[]): CallRecord[] {
  return records.filter((r) => isStream(r) && r.status !== 0 && r.status < 300 && !r.complete);
}
