/**
 * One search over the WebSocket face, signed in by the session: the cookie
 * travels with the upgrade and the CSRF token as the subprotocol pair (a
 * browser cannot set headers on a WebSocket). The server sends
 * {type, content} messages and closes the socket when the run ends; there is
 * no "done" message, so the close is the end. With ?info=true the run's info
 * (and its request id) comes as one last message before the close.
 */
import { api, ApiError, csrf, type FieldIssue } from "./api.ts";
import type { RunInfo, Source } from "./model.ts";

export interface StreamHandlers {
  onContext: (sources: Source[]) => void;
  /** A text delta, or the whole object when the body has output_format. */
  onResponse: (content: string | Record<string, unknown>) => void;
  /** How the run went: the socket's last message before a finished run's close. */
  onInfo: (info: RunInfo) => void;
  onError: (error: ApiError) => void;
  /** `stopped` is true when the run ended because the page closed the socket. */
  onEnd: (stopped: boolean) => void;
}

/**
 * The socket's error is one string; a validation failure reads
 * "body.output_format.a: message; body.prompt: message". Those become field
 * issues like a 422 over HTTP, so the same form shows them the same way.
 */
export function socketError(text: string): ApiError {
  const parts = text.split(/;\s(?=body[.:])/);
  const issues: FieldIssue[] = [];
  for (const part of parts) {
    const found = /^body((?:\.[^\s:]+)*):\s([\s\S]*)$/.exec(part);
    if (!found) return new ApiError(0, text, "search_error");
    issues.push({ path: found[1]!.replace(/^\./, ""), msg: found[2]! });
  }
  return new ApiError(422, "Some fields need attention.", "validation_error", issues);
}

/**
 * Why the upgrade was refused. A browser hears only that it was (401, 403, 429 and their bodies are hidden from it);
 * POST /v1/search spends the same allowance, and with an empty body it is refused just as the upgrade was (signed out,
 * suspended, or over the limit with the limit and the wait), before its body is read. Admitted (the refusal was the
 * open-sockets cap, or the minute has turned since), its empty body is a 422: no search runs, though it counts as a call.
 */
async function whyRefused(): Promise<ApiError> {
  try {
    await api.post("/v1/search", {});
  } catch (error) {
    if (error instanceof ApiError && error.status !== 422 && error.status !== 0) return error;
  }
  return new ApiError(0, "The search stream could not be opened. Wait a few seconds and try again.", "stream_refused");
}

export function streamSearch(body: unknown, handlers: StreamHandlers): () => void {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/v1/ws/search?info=true`, ["x-csrf-token", csrf()]);
  let opened = false;
  let failed = false;
  let stopped = false;

  socket.onopen = () => {
    opened = true;
    socket.send(JSON.stringify(body));
  };
  socket.onmessage = (event) => {
    let message: { type?: string; content?: unknown };
    try {
      message = JSON.parse(String(event.data));
    } catch {
      return;
    }
    if (message.type === "context" && Array.isArray(message.content)) handlers.onContext(message.content as Source[]);
    else if (message.type === "response") handlers.onResponse(message.content as string | Record<string, unknown>);
    else if (message.type === "info" && message.content && typeof message.content === "object") handlers.onInfo(message.content as RunInfo);
    else if (message.type === "error") {
      failed = true;
      handlers.onError(socketError(String(message.content)));
    }
  };
  socket.onclose = async (event) => {
    if (!stopped && !failed) {
      // A refused upgrade (401 signed out, 429 rate limited) reaches a browser only as a close before open.
      if (!opened) handlers.onError(await whyRefused());
      else if (event.code !== 1000)
        handlers.onError(new ApiError(0, `The stream ended early (code ${event.code}). The answer may be incomplete.`, "stream_closed"));
    }
    handlers.onEnd(stopped);
  };
  return () => {
    stopped = true;
    socket.close(1000, "stopped");
  };
}
