/**
 * What the public clients put on the wire, reproduced for the client tests:
 * Python's json.dumps (requests' `json=` and the FastChat socket both use
 * it), the headers python-requests adds by itself, and a tiny image host
 * for clients that fetch an image themselves before sending it.
 */
import { minimalPng } from "../../helpers/fixtures/images.ts";

/** Python's json.dumps with its defaults: ", " and ": " separators, ensure_ascii=True. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : JSON.stringify(value);
  if (typeof value === "string") {
    // JSON.stringify escapes quotes, backslashes and control characters the way Python does (lowercase \u00xx);
    // ensure_ascii then escapes everything above 0x7f, astral characters as their UTF-16 surrogate pair.
    return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  }
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`).join(", ")}}`;
}

/** The headers python-requests (2.32) sends on every call unless told otherwise. */
export const REQUESTS_DEFAULT_HEADERS = {
  "User-Agent": "python-requests/2.32.3",
  "Accept-Encoding": "gzip, deflate",
  Accept: "*/*",
} as const;

/** A python-requests Response, as far as the clients read it: status_code, text, json(). */
export interface PyResponse {
  status_code: number;
  headers: Headers;
  text: string;
  /** requests' response.content: the raw bytes. */
  content: Uint8Array;
  /** requests' response.json(): raises (here: throws) when the body is not JSON. */
  json(): any;
}

/** requests.request(method, url, headers=..., json=...): the body serialised by json.dumps, Content-Type from the caller. */
export async function pyRequest(
  method: string,
  url: string,
  options: { headers: Record<string, string>; json?: unknown },
): Promise<PyResponse> {
  const hasBody = options.json !== undefined;
  const response = await fetch(url, {
    method,
    headers: { ...REQUESTS_DEFAULT_HEADERS, ...(hasBody ? { "Content-Type": "application/json" } : {}), ...options.headers },
    body: hasBody ? pythonJson(options.json) : undefined,
  });
  const content = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(content);
  return {
    status_code: response.status,
    headers: response.headers,
    text,
    content,
    json: () => JSON.parse(text),
  };
}

/** Serves a PNG over plain http on loopback, for clients that download an image URL themselves. */
export function startImageHost(): { url(path: string): string; png: Uint8Array; stop(): void } {
  const png = minimalPng();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) =>
      new URL(request.url).pathname.endsWith(".png")
        ? new Response(png, { headers: { "content-type": "image/png" } })
        : new Response("not found", { status: 404 }),
  });
  return { url: (path) => `http://127.0.0.1:${server.port}${path}`, png, stop: () => server.stop(true) };
}

/** Every [n] marker of a text answer. */
export const citationsOf = (text: string): number[] => [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
