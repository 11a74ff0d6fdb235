/**
 * A web site on loopback for the contents tests: articles, redirect chains,
 * compressed and non-UTF-8 bodies, slow and endless bodies, PDFs under the
 * wrong type, HTML under the PDF type, unsupported types, 404s, conditional
 * requests, and a sitemap. It counts what it served.
 */
import { brotliCompressSync } from "node:zlib";
import { minimalPdf } from "../fixtures/pdf.ts";

export interface PageSite {
  url: string;
  port: number;
  /** Requests received, by path. */
  hits: Map<string, number>;
  notModifiedSent: number;
  stop(): void;
  /** Serve (or replace) a page at a path. */
  put(path: string, html: string, headers?: Record<string, string>): void;
  /** Answer a path only after `ms` (a straggling page). */
  delay(path: string, ms: number): void;
}

export function article(
  title: string,
  paragraphs: string[],
  extra: { lang?: string; author?: string; published?: string; site?: string } = {},
): string {
  return `<!doctype html>
<html lang="${extra.lang ?? "en"}">
<head>
  <meta charset="utf-8">
  <title>${title} | ${extra.site ?? "Loopback News"}</title>
  <meta property="og:site_name" content="${extra.site ?? "Loopback News"}">
  ${extra.author ? `<meta name="author" content="${extra.author}">` : ""}
  ${extra.published ? `<meta property="article:published_time" content="${extra.published}">` : ""}
</head>
<body>
  <header><nav><a href="/">Home</a> <a href="/world">World</a> <a href="/sports">Sports</a> <a href="/login">Sign in</a></nav></header>
  <div class="cookie-banner">We use cookies to improve your experience. Accept all cookies</div>
  <main>
    <article>
      <h1>${title}</h1>
      ${paragraphs.map((p) => `<p>${p}</p>`).join("\n      ")}
      <p>Read the <a href="/sources/report.html">full report</a> and the <a href="https://example.org/data">data</a>.</p>
    </article>
  </main>
  <aside class="related"><h3>Related stories</h3><ul><li><a href="/other">Unrelated story one</a></li><li><a href="/other2">Unrelated story two</a></li></ul></aside>
  <footer><p>Copyright Loopback News. All rights reserved.</p><a href="/privacy">Privacy policy</a></footer>
</body>
</html>`;
}

export function startPageSite(): PageSite {
  const pages = new Map<string, { body: string; headers: Record<string, string> }>();
  const delays = new Map<string, number>();
  const site: PageSite = {
    url: "",
    port: 0,
    hits: new Map(),
    notModifiedSent: 0,
    stop: () => server.stop(true),
    put: (path, html, headers = {}) => pages.set(path, { body: html, headers }),
    delay: (path, ms) => delays.set(path, ms),
  };
  const html = { "content-type": "text/html; charset=utf-8" };
  const paragraphs = [
    "The city council approved the new river bridge on Tuesday after a two-year debate about its cost and design.",
    "Construction will begin in March and is expected to take eighteen months, according to the transport department.",
    "The bridge will carry two lanes of traffic, a protected cycle path and a wide walkway for pedestrians.",
  ];
  site.put(
    "/article.html",
    article("Council approves the river bridge", paragraphs, { author: "Jane Reporter", published: "2026-03-04T10:00:00Z" }),
  );

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      site.hits.set(path, (site.hits.get(path) ?? 0) + 1);
      const delay = delays.get(path);
      if (delay) await Bun.sleep(delay);
      const stored = pages.get(path);
      if (stored) return new Response(stored.body, { headers: { ...html, ...stored.headers } });

      const redirect = /^\/redirect\/(\d+)$/.exec(path);
      if (redirect) {
        const n = Number(redirect[1]);
        return new Response(null, { status: 302, headers: { location: n <= 1 ? "/article.html" : `/redirect/${n - 1}` } });
      }
      switch (path) {
        case "/redirect-loop":
          return new Response(null, { status: 301, headers: { location: "/redirect-loop" } });
        case "/to-private":
          return new Response(null, {
            status: 302,
            headers: { location: url.searchParams.get("target") ?? "http://169.254.169.254/latest/meta-data/" },
          });
        case "/gzip.html":
          return new Response(
            Bun.gzipSync(
              new TextEncoder().encode(
                article("Compressed with gzip", ["This page travelled gzip-compressed over the wire and must arrive intact."]),
              ),
            ),
            {
              headers: { ...html, "content-encoding": "gzip" },
            },
          );
        case "/brotli.html":
          return new Response(
            brotliCompressSync(
              Buffer.from(
                article("Compressed with brotli", ["This page travelled brotli-compressed over the wire and must arrive intact."]),
              ),
            ),
            {
              headers: { ...html, "content-encoding": "br" },
            },
          );
        case "/latin1.html": {
          const text = article(
            "Café crème à Zürich",
            ["Ein Bericht über Käse, Würste und Grüße aus der Schweiz: naïve Façaden, déjà vu."],
            { lang: "de" },
          );
          const bytes = Uint8Array.from([...text].map((c) => (c.charCodeAt(0) < 256 ? c.charCodeAt(0) : 63)));
          return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": "text/html; charset=ISO-8859-1" } });
        }
        case "/drip":
          return new Response(
            new ReadableStream({
              async pull(controller) {
                await Bun.sleep(100);
                controller.enqueue(new TextEncoder().encode("<p>drip</p>"));
              },
            }),
            { headers: html },
          );
        case "/slow-headers":
          await Bun.sleep(3_000);
          return new Response("<p>late</p>", { headers: html });
        case "/endless":
          return new Response(
            new ReadableStream({
              pull(controller) {
                controller.enqueue(new TextEncoder().encode("<p>" + "endless ".repeat(8_000) + "</p>"));
              },
            }),
            { headers: html },
          );
        case "/gzip-bomb":
          return new Response(Bun.gzipSync(new Uint8Array(40 * 1024 * 1024)), { headers: { ...html, "content-encoding": "gzip" } });
        case "/report.pdf-octet":
          return new Response(
            minimalPdf(["Quarterly report of the river bridge project.", "Spending stayed within the approved budget."], "Bridge report"),
            {
              headers: { "content-type": "application/octet-stream" },
            },
          );
        case "/html-as-pdf":
          return new Response(article("Mislabelled page", ["This is HTML although the server calls it a PDF document."]), {
            headers: { "content-type": "application/pdf" },
          });
        case "/image.png":
          return new Response(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), {
            headers: { "content-type": "image/png" },
          });
        case "/plain.txt":
          return new Response("Plain text notes.\n\nSecond paragraph of the notes.", {
            headers: { "content-type": "text/plain; charset=utf-8" },
          });
        case "/data.json":
          return Response.json({ bridge: { lanes: 2, cycle_path: true } });
        case "/etag.html": {
          const etag = '"v1"';
          if (request.headers.get("if-none-match") === etag) {
            site.notModifiedSent++;
            return new Response(null, { status: 304, headers: { etag } });
          }
          return new Response(article("A page with an ETag", ["This page supports conditional requests with an entity tag."]), {
            headers: { ...html, etag },
          });
        }
        case "/sitemap.xml": {
          const locs = ["/article.html", "/gzip.html", "/brotli.html", "/latin1.html", "/missing-page"]
            .map((p) => `<url><loc>${site.url}${p}</loc></url>`)
            .join("");
          return new Response(
            `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs}</urlset>`,
            {
              headers: { "content-type": "application/xml" },
            },
          );
        }
        case "/huge-table.html": {
          const rows = Array.from(
            { length: 20_000 },
            (_, i) => `<tr><td>row ${i}</td><td>${"cell ".repeat(8)}</td><td>${i * 7}</td></tr>`,
          ).join("");
          return new Response(`<!doctype html><html><body><article><h1>Huge table</h1><table>${rows}</table></article></body></html>`, {
            headers: html,
          });
        }
        case "/user-agent":
          return new Response(`<p>${request.headers.get("user-agent")}</p>`, { headers: html });
      }
      return new Response("<h1>Not found</h1>", { status: 404, headers: html });
    },
  });
  site.port = server.port!;
  site.url = `http://127.0.0.1:${server.port}`;
  return site;
}

/** A server that must never be reached: the SSRF tests count its requests. */
export function startCanary(): { port: number; requests: () => number; stop(): void } {
  let requests = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      requests++;
      return new Response("internal secret");
    },
  });
  return { port: server.port!, requests: () => requests, stop: () => server.stop(true) };
}
