/**
 * The metrics port: GET /metrics in Prometheus's text format, on a server of
 * its own (METRICS_PORT), never on the public one. Fly's scraper reaches it
 * over the private network; nothing on it needs a key, and nothing on it
 * names a caller. Anything but GET /metrics is a 404.
 */
import { renderMetrics } from "./metrics.ts";

export interface MetricsServer {
  readonly port: number;
  stop(): Promise<void>;
}

export function serveMetrics(options: { port: number; host: string }): MetricsServer {
  const server = Bun.serve({
    port: options.port,
    hostname: options.host,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path !== "/metrics") return new Response("not found\n", { status: 404 });
      if (request.method !== "GET" && request.method !== "HEAD")
        return new Response("method not allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
      const { text, contentType } = await renderMetrics();
      return new Response(request.method === "HEAD" ? null : text, { headers: { "content-type": contentType } });
    },
  });
  return { port: server.port ?? options.port, stop: () => server.stop(true) };
}
