/**
 * GET /v1/ws/search on Bun's WebSockets. The upgrade is authenticated and
 * rate limited like any call: a missing or bad key refuses the upgrade with
 * 401 (429 when limited). Browsers, which cannot set headers, send the key as
 * the subprotocol pair `x-api-key, <key>`; the server answers `x-api-key`.
 * The client sends one JSON message with the search body; the server sends
 * `{type, content}` messages (context, response deltas, or error) and closes
 * normally when the run ends. There is no "done" frame: clients read until
 * close. An invalid message gets one error, then the close.
 */
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { bucketOf, type Caller } from "../http/caller.ts";
import { InvalidInput, ServiceError } from "../errors.ts";
import { authenticated, CSRF_SUBPROTOCOL, KEY_SUBPROTOCOL, type AuthDeps } from "../http/auth.ts";
import { requestMeta } from "../http/request-context.ts";
import { parseJsonInput, valueProblems } from "../http/json-input.ts";
import { jsonErrorOffset, validationIssues } from "../http/validation-detail.ts";
import type { Logger } from "../log.ts";
import type { SearchBody } from "../research/request.ts";
import type { UsageRecorder } from "../usage/recorder.ts";
import { SearchMessage } from "./model.ts";
import { faceOutcome, logOutcome } from "./outcome.ts";
import { checkSearchBody, startRun, type SearchFaceDeps } from "./run.ts";

const FIRST_MESSAGE_TIMEOUT_MS = 30_000;
const BACKPRESSURE_BYTES = 1 << 20;

interface RawSocket {
  send(data: string): number;
  close(code?: number, reason?: string): void;
  getBufferedAmount(): number;
}

interface SocketState {
  caller: Caller;
  requestId: string;
  started: boolean;
  /** Set when the client closed: nothing more can be sent. */
  closed: boolean;
  controller: AbortController;
  idle: ReturnType<typeof setTimeout> | undefined;
}

export interface SocketLimits {
  maxSocketsPerKey: number;
}

export function searchSocket(auth: AuthDeps, face: SearchFaceDeps, usage: UsageRecorder, log: Logger, limits: SocketLimits) {
  const openPerKey = new Map<string, number>();
  const states = new WeakMap<object, SocketState>();

  const send = async (socket: RawSocket, signal: AbortSignal, type: string, content: unknown) => {
    // Honour backpressure: a slow reader slows the run instead of growing our buffers.
    while (socket.getBufferedAmount() > BACKPRESSURE_BYTES && !signal.aborted) await Bun.sleep(5);
    if (socket.send(JSON.stringify({ type, content })) === 0) throw new ServiceError("bad_request", "the socket closed");
  };

  const run = async (socket: RawSocket, state: SocketState, message: unknown) => {
    const signal = state.controller.signal;
    let status = 200;
    let code = "done";
    let tokens = 0;
    try {
      const body = messageBody(message);
      if (!Value.Check(SearchMessage, body)) throw new InvalidInput(validationIssues(SearchMessage, body, ["body"]));
      const events = await startRun(face, checkSearchBody(face, body as SearchBody), signal, state.requestId);
      for (;;) {
        const next = await events.next();
        if (next.done) {
          tokens = next.value.token_usage;
          break;
        }
        await send(socket, signal, next.value.type, next.value.content);
      }
    } catch (thrown) {
      // A run we stopped (a second message) failed because of why we stopped it: that is what the client hears.
      const error = signal.aborted && signal.reason instanceof ServiceError ? signal.reason : thrown;
      const outcome = faceOutcome(error, state.requestId);
      status = outcome.status;
      code = outcome.code;
      logOutcome(log, state.requestId, outcome, "search socket");
      // SPEC 6: an error message, then the close; unless the client has gone.
      if (!state.closed) await send(socket, signal, "error", outcome.message).catch(() => {});
    } finally {
      usage.record({ caller: state.caller, route: "WS /v1/ws/search", status, tokens, requestId: state.requestId, at: new Date() });
      // The close's reason repeats the code ("done" after a run that finished): a client can read it without parsing the text.
      socket.close(1000, code);
    }
  };

  return new Elysia()
    .use(authenticated(auth))
    .ws("/v1/ws/search", {
      beforeHandle({ caller, request }) {
        if ((openPerKey.get(bucketOf(caller)) ?? 0) >= limits.maxSocketsPerKey) {
          throw new ServiceError("rate_limited", `at most ${limits.maxSocketsPerKey} open search sockets per key`, { retryAfterSeconds: 5 });
        }
        requestMeta(request).usageRecordedLater = true;
      },
      upgrade({ request, set }) {
        // A browser fails the connection unless the server picks one of the subprotocols it offered.
        const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
        const chosen = [KEY_SUBPROTOCOL, CSRF_SUBPROTOCOL].find((p) => offered.includes(p));
        if (chosen) set.headers["sec-websocket-protocol"] = chosen;
      },
      open(ws) {
        const { caller, request } = ws.data as unknown as { caller: Caller; request: Request };
        openPerKey.set(bucketOf(caller), (openPerKey.get(bucketOf(caller)) ?? 0) + 1);
        const raw = ws.raw as unknown as RawSocket;
        const state: SocketState = { caller, requestId: requestMeta(request).id, started: false, closed: false, controller: new AbortController(), idle: undefined };
        state.idle = setTimeout(() => {
          // Usage for a socket that never started is recorded at its close, with this status.
          const outcome = faceOutcome(new ServiceError("bad_request", "no search message received in time"), state.requestId);
          void send(raw, state.controller.signal, "error", outcome.message).catch(() => {});
          raw.close(1000, outcome.code);
        }, FIRST_MESSAGE_TIMEOUT_MS);
        states.set(ws.raw, state);
      },
      message(ws, message) {
        const state = states.get(ws.raw);
        if (!state) return;
        const raw = ws.raw as unknown as RawSocket;
        clearTimeout(state.idle);
        if (state.started) {
          // One search per connection: a second message ends it.
          state.controller.abort(new ServiceError("bad_request", "one search per connection"));
          return;
        }
        state.started = true;
        void run(raw, state, message);
      },
      close(ws) {
        const state = states.get(ws.raw);
        if (!state) return;
        clearTimeout(state.idle);
        state.closed = true;
        if (!state.started) {
          usage.record({ caller: state.caller, route: "WS /v1/ws/search", status: 400, tokens: 0, requestId: state.requestId, at: new Date() });
        }
        state.controller.abort(new ServiceError("bad_request", "the client closed the socket"));
        const bucket = bucketOf(state.caller);
        const open = (openPerKey.get(bucket) ?? 1) - 1;
        if (open <= 0) openPerKey.delete(bucket);
        else openPerKey.set(bucket, open);
      },
    });
}

/** Elysia has parsed a JSON message already (a text it could not parse stays a string): the same limits as a body. */
function messageBody(message: unknown): unknown {
  if (typeof message === "string") return parseJsonInput(message, jsonErrorOffset);
  const problems = valueProblems(message, ["body"]);
  if (problems.length) throw new InvalidInput(problems);
  return message;
}
