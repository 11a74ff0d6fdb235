/** Where this service is reached from: for links in answers, and to tell same-origin requests from others. */
const HOST_SHAPE = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The base URL callers should use: PUBLIC_BASE_URL, else this request's own scheme and Host. */
export function baseUrlOf(request: Request, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl) return publicBaseUrl;
  // Never `new URL(request.url)`: a malformed Host makes request.url unparsable.
  const scheme = request.url.startsWith("https:") ? "https" : "http";
  const host = request.headers.get("host");
  return `${scheme}://${host && HOST_SHAPE.test(host) ? host : "localhost"}`;
}

/**
 * False when a browser says the request comes from another site: the
 * Origin header, when present, must be this service's own origin (the
 * request's Host, or PUBLIC_BASE_URL). Clients other than browsers send none.
 */
export function sameOrigin(request: Request, publicBaseUrl: string | undefined): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  const own = [baseUrlOf(request, undefined)];
  if (publicBaseUrl) own.push(new URL(publicBaseUrl).origin);
  const host = request.headers.get("host");
  if (host) own.push(`https://${host}`, `http://${host}`);
  return own.some((candidate) => candidate.toLowerCase() === origin.toLowerCase());
}

/** The address to print for a server listening on `host`: a wildcard bind is reached at localhost. */
export function localBaseUrl(host: string, port: number): string {
  return `http://${["0.0.0.0", "::", "[::]"].includes(host) ? "localhost" : host}:${port}`;
}
