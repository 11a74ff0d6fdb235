/** The dashboard session's cookie: its name, how it is read, and how it is set. */
export const SESSION_COOKIE = "as_session";

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key !== name) continue;
    // A cookie that is not valid percent-encoding is no session (a 401), not a 500.
    try {
      return decodeURIComponent(rest.join("="));
    } catch {
      return null;
    }
  }
  return null;
}

/** HttpOnly (page scripts never see it), SameSite=Lax, Secure behind https. An empty token with max age 0 clears it. */
export function sessionCookie(token: string, options: { maxAgeSeconds: number; secure: boolean }): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${options.maxAgeSeconds}`,
    ...(options.secure ? ["Secure"] : []),
  ].join("; ");
}
