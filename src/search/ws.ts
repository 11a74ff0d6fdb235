/**
 * GET /v1/ws/search on Bun's WebSockets. The upgrade is authenticated and
 * rate limited like any call: a missing or bad key refuses the upgrade with
 * 401 (403 for a suspended or banned account, 429 when limited). Browsers, which cannot set headers, send the key as
 * the subprotocol pair `x-api-key, <key>`; the server answers `x-api-key`.
 * The client sends one JSON message with the search body; the server sends
 * `{type, content}` messages (context, response deltas, or error) and closes
 * normally when the run ends. There is no "done" frame: clients read until
 * close. An invalid message gets one error, then the close. With `?info=true`
 * a run that finished sends one more message before the close, `info`: the
 * run's info as POST /v1/search answers it, with the call's request_id (the
 * dashboard shows how its playground run went; a browser cannot read the
 * upgrade's headers). Without it the messages are SPEC 6's only.
 */
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { InvalidInput, ServiceError } from "../errors.ts";
import { authenticated, CSRF_SUBPROTOCOL, KEY_SUBPROTOCOL, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import { bucketOf, type CallOrigin, type Caller } from "../caller.ts";
import { parseJsonInput, valueProblems } from "../http/json-input.ts";
import { queryBoolean } from "../http/query-boolean.ts";
import type { Call } from "../http/call.ts";
import { jsonErrorOffset, validationIssues } from "../http/validation-detail.ts";
import type { Logger } from "../log.ts";
import { gaugeFrom } from "../observe/metrics.ts";
import type { SearchBody } from "../research/request.ts";
import { drain } from "../research/run/drain.ts";
import { checkSearchBody, refusedUsage, startSearch, type RunDeps } from "../research/run/hold.ts";
import { faceOutcome, logOutcome, type FaceMessage } from "../research/run/outcome.ts";
import type { Usage } from "../call-usage.ts";
import { SearchMessage } from "./model.ts";

const FIRST_MESSAGE_TIMEOUT_MS = 30_000;
/** What the socket's usage records name it. */
const SOCKET_ROUTE = "WS /v1/ws/search";
const BACKPRESSURE_BYTES = 1 << 20;

/** Search sockets of this process open now, whichever app serves them: open_streams{kind="websocket"}. */
let openSockets = 0;
gaugeFrom("open_streams", () => openSockets, { kind: "websocket" });

interface RawSocket {
  send(data: string): number;
  close(code?: number, reason?: string): void;
  getBufferedAmount(): number;
}

interface SocketState {
  caller: Caller;
  origin: CallOrigin;
  requestId: string;
  /** Asked for with ?info=true: the run's info is sent before the close. */
  info: boolean;
  /** Records the socket's usage, once: its run's, or its refusal's. */
  ended: (usage: Usage) => void;
  /** Resolves once the run's usage is written; the socket closes only then. */
  written: () => Promise<void>;
  started: boolean;
  /** Set when the client closed: nothing more can be sent. */
  closed: boolean;
  controller: AbortController;
  idle: ReturnType<typeof setTimeout> | undefined;
  /** Unregisters the socket from the standing watch (a suspension while it waits for its message). */
  unwatch?: () => void;
}

/** What the socket sends: a stream's messages, and the `info` asked for with ?info=true. */
type SocketMessage = FaceMessage | { type: "info"; content: Record<string, unknown> };

export interface SocketLimits {
  maxSocketsPerKey: number;
}

export function searchSocket(auth: AuthDeps, runs: RunDeps, log: Logger, limits: SocketLimits) {
  const openPerKey = new Map<string, number>();
  const states = new WeakMap<object, SocketState>();

  const send = async (socket: RawSocket, signal: AbortSignal, message: SocketMessage) => {
    // Honour backpressure: a slow reader slows the run instead of growing our buffers.
    while (socket.getBufferedAmount() > BACKPRESSURE_BYTES && !signal.aborted) await Bun.sleep(5);
    if (socket.send(JSON.stringify({ type: message.type, content: message.content })) === 0)
      throw new ServiceError("bad_request", "the socket closed");
  };

  const run = async (socket: RawSocket, state: SocketState, message: unknown) => {
    const signal = state.controller.signal;
    let code = "done";
    // Until the run starts, a refusal is this face's to record; from then on the run wrapper records the call.
    let held = false;
    try {
      const body = messageBody(message);
      if (!Value.Check(SearchMessage, body)) throw new InvalidInput(validationIssues(SearchMessage, body, ["body"]));
      const request = checkSearchBody(runs, body as SearchBody);
      held = true;
      // A busy instance queues the run (research/run/queue.ts): the socket simply waits, as SPEC 6 has no message for it.
      const events = await startSearch(runs, request, {
        account: state.caller.accountId,
        key: state.caller.keyId,
        origin: state.origin,
        requestId: state.requestId,
        signal,
        ended: state.ended,
      });
      const info = await drain(events, (event) => send(socket, signal, event));
      // The close tells the client the answer is whole: it comes once the answer's usage is written.
      await state.written();
      if (state.info) await send(socket, signal, { type: "info", content: { ...info, request_id: state.requestId } });
    } catch (error) {
      // A run we stopped (a second message) ends with why we stopped it: the wrapper says so.
      const outcome = faceOutcome(error, state.requestId);
      code = outcome.code;
      logOutcome(log, state.requestId, outcome, "search socket");
      if (!held) state.ended(refusedUsage(runs, outcome.status));
      // SPEC 6: an error message, then the close; unless the client has gone.
      if (!state.closed) await send(socket, signal, { type: "error", content: outcome.message }).catch(() => {});
    } finally {
      // The close's reason repeats the code ("done" after a run that finished): a client can read it without parsing the text.
      socket.close(1000, code);
    }
  };

  return new Elysia().use(authenticated(auth)).ws("/v1/ws/search", {
    // Documented by hand in http/openapi.ts (OpenAPI has no WebSocket operation); billable like POST /v1/search.
    detail: secured({ hide: true }, { billable: true }),
    beforeHandle({ caller, call, request }) {
      // A bad value refuses the upgrade with its 422, before the socket counts against the key.
      askedForInfo(request);
      if ((openPerKey.get(bucketOf(caller)) ?? 0) >= limits.maxSocketsPerKey) {
        throw new ServiceError("rate_limited", `at most ${limits.maxSocketsPerKey} open search sockets per key`, { retryAfterSeconds: 5 });
      }
      // The socket outlives its upgrade: it records its usage when its run, or its refusal, ends.
      call.streams(SOCKET_ROUTE);
      // Its address is read now, while Bun still knows the socket's peer: after the upgrade it does not.
      void call.origin;
    },
    upgrade({ request, set }) {
      // A browser fails the connection unless the server picks one of the subprotocols it offered.
      const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
      const chosen = [KEY_SUBPROTOCOL, CSRF_SUBPROTOCOL].find((p) => offered.includes(p));
      if (chosen) set.headers["sec-websocket-protocol"] = chosen;
    },
    open(ws) {
      const { caller, call, request } = ws.data as unknown as { caller: Caller; call: Call; request: Request };
      openPerKey.set(bucketOf(caller), (openPerKey.get(bucketOf(caller)) ?? 0) + 1);
      const raw = ws.raw as unknown as RawSocket;
      const state: SocketState = {
        caller,
        origin: call.origin,
        requestId: call.requestId,
        info: askedForInfo(request),
        ended: call.streams(SOCKET_ROUTE),
        written: () => call.written(),
        started: false,
        closed: false,
        controller: new AbortController(),
        idle: undefined,
      };
      // Suspended or banned, or its key revoked, before its message: the socket ends with the 403's (or 401's) error; once its
      // run started, the run wrapper ends it.
      state.unwatch = runs.standing?.track(
        caller.accountId,
        (refusal) => {
          if (state.started || state.closed) return;
          state.started = true;
          clearTimeout(state.idle);
          const outcome = faceOutcome(refusal, state.requestId);
          state.ended(refusedUsage(runs, outcome.status));
          void send(raw, state.controller.signal, { type: "error", content: outcome.message }).catch(() => {});
          raw.close(1000, outcome.code);
        },
        caller.keyId,
      );
      state.idle = setTimeout(() => {
        // Usage for a socket that never started is recorded at its close, with this status.
        const outcome = faceOutcome(new ServiceError("bad_request", "no search message received in time"), state.requestId);
        void send(raw, state.controller.signal, { type: "error", content: outcome.message }).catch(() => {});
        raw.close(1000, outcome.code);
      }, FIRST_MESSAGE_TIMEOUT_MS);
      states.set(ws.raw, state);
      // Counted with its state: close() uncounts exactly the sockets that have one.
      openSockets++;
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
      openSockets--;
      clearTimeout(state.idle);
      state.unwatch?.();
      state.closed = true;
      if (!state.started) state.ended(refusedUsage(runs, 400));
      state.controller.abort(new ServiceError("bad_request", "the client closed the socket"));
      const bucket = bucketOf(state.caller);
      const open = (openPerKey.get(bucket) ?? 1) - 1;
      if (open <= 0) openPerKey.delete(bucket);
      else openPerKey.set(bucket, open);
    },
  });
}

/** ?info=true: the run's info is sent before the close. */
function askedForInfo(request: Request): boolean {
  return queryBoolean(new URL(request.url).searchParams.get("info") ?? undefined, "info", false);
}

/** Elysia has parsed a JSON message already (a text it could not parse stays a string): the same limits as a body. */
function messageBody(message: unknown): unknown {
  if (typeof message === "string") return parseJsonInput(message, jsonErrorOffset);
  const problems = valueProblems(message, ["body"]);
  if (problems.length) throw new InvalidInput(problems);
  return message;
}
