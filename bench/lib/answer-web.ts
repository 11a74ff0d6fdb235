/**
 * The answer bench's loopback web: every page of ../shared/data served by one
 * Bun.serve on 127.0.0.1 at its own address (pageUrl's host and path, over
 * http on the server's port, chosen by the Host header), and a search engine
 * speaking SearXNG's JSON that ranks all of them by text (page-index.ts).
 *
 * An app reaches the pages through a static resolver that sends every host
 * to 127.0.0.1 and FETCH_ALLOW_HOSTS naming each host with the port. A page
 * whose eval URL is not an http(s) address ("hard::…") is served under a
 * made-up host named after its file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extractDocument } from "../../src/contents/extract/index.ts";
import { startSearxngPeer, type SearxngPeer } from "../../test/helpers/peers/searxng.ts";
import { sharedPath } from "../../test/helpers/shared.ts";
import { pageBytes, pageUrl, type PageRef } from "./answer-set.ts";
import { PageIndex } from "./page-index.ts";

export interface WebPage {
  ref: PageRef;
  /** Where the app fetches it: http://host:PORT/path. */
  url: string;
  title: string;
}

export interface AnswerWeb {
  pages: WebPage[];
  searxng: SearxngPeer;
  /** For a StaticResolver: every served host to 127.0.0.1. */
  hostAnswers: Record<string, string[]>;
  /** FETCH_ALLOW_HOSTS: host:PORT for each served host. */
  allowHosts: string;
  servedUrl(ref: PageRef): string;
  /** How many searches the peer has answered: a mark for hitsSince. */
  searches(): number;
  /** The URLs the peer ranked in its first `top` since the mark: a page missing here was never offered to the app. */
  hitsSince(mark: number, top: number): Set<string>;
  /** The page a URL (as an app reports it in `context`) names, if any. */
  pageAt(url: string): PageRef | undefined;
  stop(): void;
}

/** Hits SearXNG gives per page of results. */
const RESULTS = 20;

/** Every page of the shared data: the eval set's files and the dev set's folders with a source.html. */
export function allPages(): PageRef[] {
  const evalData = JSON.parse(readFileSync(sharedPath("data", "extraction-eval", "evaldata.json"), "utf8")) as Record<
    string,
    { file: string }
  >;
  const evalPages = Object.values(evalData).map((v): PageRef => ({ set: "extraction-eval", file: v.file }));
  const devPages = readdirSync(sharedPath("data", "extraction-dev"))
    .filter((folder) => existsSync(sharedPath("data", "extraction-dev", folder, "source.html")))
    .sort()
    .map((folder): PageRef => ({ set: "extraction-dev", file: folder }));
  return [...evalPages, ...devPages];
}

/** One spelling per page however an app writes it back: lowercase host without www., no trailing slash. */
export function addressKey(host: string, path: string): string {
  return `${host.toLowerCase().replace(/^www\./, "")}${path.replace(/\/+(?=\?|$)/, "")}`;
}

function address(ref: PageRef): { host: string; path: string } {
  let url: URL | null = null;
  try {
    url = new URL(pageUrl(ref));
  } catch {}
  if (url && (url.protocol === "http:" || url.protocol === "https:") && url.hostname)
    return { host: url.hostname.toLowerCase(), path: url.pathname + url.search };
  return { host: `${ref.file.toLowerCase().replace(/[^a-z0-9-]+/g, "-")}.eval.test`, path: "/" };
}

/** The charset a page declares in its first bytes, for the content-type header. */
function declaredCharset(body: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(body.subarray(0, 4096));
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1]?.toLowerCase() ?? null;
}

export async function startAnswerWeb(progress: (done: number, total: number) => void = () => {}): Promise<AnswerWeb> {
  const refs = allPages();
  const bodies: { body: Uint8Array<ArrayBuffer>; contentType: string }[] = [];
  const addresses: { host: string; path: string }[] = [];
  const byKey = new Map<string, number>();
  const indexed: { title: string; text: string }[] = [];
  for (const [i, ref] of refs.entries()) {
    // Copied once into a plain ArrayBuffer, which a Response body takes as it is.
    const body = new Uint8Array(pageBytes(ref));
    const charset = declaredCharset(body);
    bodies.push({ body, contentType: charset ? `text/html; charset=${charset}` : "text/html" });
    let at = address(ref);
    // Two eval pages at one address would shadow each other: the later one moves to a made-up host.
    if (byKey.has(addressKey(at.host, at.path))) at = { host: `page-${i}.eval.test`, path: "/" };
    addresses.push(at);
    byKey.set(addressKey(at.host, at.path), i);
    const doc = await extractDocument({ body, contentType: "text/html", url: pageUrl(ref) }).catch(() => null);
    indexed.push({ title: doc?.title || at.host, text: doc?.text ?? "" });
    if ((i + 1) % 100 === 0 || i + 1 === refs.length) progress(i + 1, refs.length);
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const host = (request.headers.get("host") ?? url.host).replace(/:\d+$/, "");
      const found = byKey.get(addressKey(host, url.pathname + url.search));
      if (found === undefined) return new Response("not found", { status: 404, headers: { "content-type": "text/plain" } });
      const { body, contentType } = bodies[found]!;
      return new Response(body, { headers: { "content-type": contentType } });
    },
  });
  const served = (i: number) => `http://${addresses[i]!.host}:${server.port}${addresses[i]!.path}`;
  const pages = refs.map((ref, i): WebPage => ({ ref, url: served(i), title: indexed[i]!.title }));
  const indexOf = new Map(refs.map((ref, i) => [`${ref.set}/${ref.file}`, i]));

  const index = new PageIndex(indexed);
  const searxng = startSearxngPeer();
  const answered: string[][] = [];
  searxng.setAnswers((ask) => {
    const sites = ask.hosts.map((h) => h.toLowerCase().replace(/^www\./, ""));
    const within = (i: number) => {
      const host = addresses[i]!.host.replace(/^www\./, "");
      return sites.length === 0 || sites.some((site) => host === site || host.endsWith(`.${site}`));
    };
    const hits = index
      .search(ask.query, Math.min(RESULTS, ask.count), within)
      .map((hit) => ({ title: pages[hit.page]!.title, url: pages[hit.page]!.url, snippet: hit.snippet }));
    answered.push(hits.map((h) => h.url));
    return hits;
  });

  const hosts = [...new Set(addresses.map((a) => a.host))];
  return {
    pages,
    searxng,
    hostAnswers: Object.fromEntries(hosts.map((h) => [h, ["127.0.0.1"]])),
    allowHosts: hosts.map((h) => `${h}:${server.port}`).join(","),
    servedUrl(ref) {
      const i = indexOf.get(`${ref.set}/${ref.file}`);
      if (i === undefined) throw new Error(`${ref.set}/${ref.file} is not served`);
      return served(i);
    },
    searches: () => answered.length,
    hitsSince: (mark, top) => new Set(answered.slice(mark).flatMap((urls) => urls.slice(0, top))),
    pageAt(raw) {
      try {
        const url = new URL(raw);
        const i = byKey.get(addressKey(url.hostname, url.pathname + url.search));
        return i === undefined ? undefined : refs[i];
      } catch {
        return undefined;
      }
    },
    stop() {
      searxng.stop();
      server.stop(true);
    },
  };
}
