/**
 * A webhook receiver on loopback: keeps every message it is sent (headers
 * and the raw body, as a verifier reads them). The app may call it only when
 * its `host` is in FETCH_ALLOW_HOSTS. `refuseFirst` answers each message id's
 * first attempts 500, with words of its own that must never be logged.
 */
export interface Received {
  headers: Record<string, string>;
  body: string;
}

export function startWebhookReceiver(options: { refuseFirst?: number } = {}) {
  const received: Received[] = [];
  const seen = new Map<string, number>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      const headers = Object.fromEntries(request.headers.entries());
      received.push({ headers, body });
      const id = headers["webhook-id"] ?? "";
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      if (count <= (options.refuseFirst ?? 0)) return new Response("RECEIVER-SECRET-WORDS: database on fire at 10.9.8.7", { status: 500 });
      return new Response("ok");
    },
  });
  return {
    received,
    port: server.port!,
    /** `host:port`, for FETCH_ALLOW_HOSTS. */
    host: `127.0.0.1:${server.port}`,
    url: (path = "/hook") => `http://127.0.0.1:${server.port}${path}`,
    stop: () => server.stop(true),
  };
}
