/**
 * The one way the dashboard talks to the service: same-origin fetch with the
 * session cookie and the CSRF header (without the header the server ignores
 * the session), and one error shape for every failure so pages can show the
 * API's own messages where they belong.
 */

export interface FieldIssue {
  /** The loc without its leading "body"/"query", joined with dots: "inputs.0.name". */
  path: string;
  msg: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly issues: FieldIssue[] = [],
    readonly retryAfter: number | null = null,
    /** The answer's other fields, beside `detail` and `error` (a refused sign-in link's `account_id`). */
    readonly fields: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** Messages about exactly this path (a list's own errors, not its items'). */
  only(path: string): string[] {
    return this.issues.filter((i) => i.path === path).map((i) => i.msg);
  }

  /** Messages for one field: issues at the path itself or anywhere under it. */
  at(path: string): string[] {
    return this.issues
      .filter((i) => i.path === path || i.path.startsWith(`${path}.`))
      .map((i) => (i.path === path ? i.msg : `${i.path.slice(path.length + 1)}: ${i.msg}`));
  }
}

let csrfToken = "";
let onSignedOut: () => void = () => {};

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export function csrf(): string {
  return csrfToken;
}

/** Called when a signed-in call answers 401: the session ended (expired or signed out elsewhere). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

let onSuspended: (error: ApiError) => void = () => {};

/** Called when a call answers 403 account_suspended: the owner's account was suspended or banned, the error says why. */
export function whenSuspended(handler: (error: ApiError) => void): void {
  onSuspended = handler;
}

export const isSuspension = (error: unknown): error is ApiError => error instanceof ApiError && error.code === "account_suspended";

function issuePath(loc: unknown[]): string {
  const parts = loc[0] === "body" || loc[0] === "query" || loc[0] === "path" ? loc.slice(1) : loc;
  return parts.map(String).join(".");
}

/** FastAPI's 422 (`detail` is a list) or the service's `{detail, error}`. */
async function toError(response: Response): Promise<ApiError> {
  const retry = Number(response.headers.get("retry-after"));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's page, an empty body): fall back to the status line below.
  }
  const detail = (body as { detail?: unknown } | null)?.detail;
  const code = String((body as { error?: unknown } | null)?.error ?? (response.status === 422 ? "validation_error" : "http_error"));
  if (Array.isArray(detail)) {
    const issues = detail.map((d: { loc?: unknown[]; msg?: unknown }) => ({
      path: issuePath(d.loc ?? []),
      msg: String(d.msg ?? "invalid"),
    }));
    return new ApiError(response.status, "Some fields need attention.", code, issues, retryAfter);
  }
  const message = typeof detail === "string" ? detail : `${response.status} ${response.statusText || "error"}`;
  const fields = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  return new ApiError(response.status, message, code, [], retryAfter, fields);
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sign-in and sign-up answer 401 for wrong credentials; that is not a lost session. */
  quietUnauthorized?: boolean;
}

/** Sends one call with the session's headers (and `extra` ones); answers the response when it is a success, else throws its ApiError. */
async function send(
  method: string,
  path: string,
  body: unknown,
  options: RequestOptions,
  extra: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json", ...extra };
  if (csrfToken) headers["X-CSRF-Token"] = csrfToken;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(0, "The service could not be reached. Check your connection and try again.", "network_error");
  }
  if (!response.ok) {
    const error = await toError(response);
    if (response.status === 401 && !options.quietUnauthorized) onSignedOut();
    // Sign-in shows the refusal in its own form; any other page hands it to the app, which says why in place of the page.
    if (isSuspension(error) && !options.quietUnauthorized) onSuspended(error);
    throw error;
  }
  return response;
}

export async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const response = await send(method, path, body, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A GET whose answer is read as it arrives (server-sent events): the response itself, its body unread. */
export function openStream(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  return send("GET", path, undefined, { signal }, headers);
}

/** A POST whose answer comes with the call's request id (X-Request-Id): a run's usage record is found by it. */
export async function postForRun<T>(path: string, body: unknown): Promise<{ answer: T; requestId: string | null }> {
  const response = await send("POST", path, body, {});
  return { answer: (await response.json()) as T, requestId: response.headers.get("x-request-id") };
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>("GET", path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>("POST", path, body ?? {}, options),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  delete: <T>(path: string) => request<T>("DELETE", path),
};

/** A readable sentence for any failure, with the wait on 429. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 429 && error.retryAfter !== null && !error.message.includes(`${error.retryAfter} second`)) {
    return `${error.message} Retry after ${error.retryAfter} seconds.`;
  }
  return error.message;
}
