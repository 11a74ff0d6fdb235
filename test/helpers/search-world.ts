/**
 * A small web for search tests and benchmarks: pages on loopback under
 * several host names (resolved to 127.0.0.1 by a fake resolver and allowed
 * through FETCH_ALLOW_HOSTS), and two search providers speaking SearXNG's and
 * Brave's wire formats, scripted to return those pages for the questions
 * the tests ask. The fake resolver answers in this process only: for servers
 * run as processes of their own (the fleet), `{ spawned: true }` puts every
 * page under 127.0.0.1, which any resolver knows.
 */
import { StaticResolver } from "../../src/contents/egress/resolver.ts";
import { startBravePeer, type BravePeer } from "./peers/brave.ts";
import { article, startPageSite, type PageSite } from "./peers/pages.ts";
import type { PeerAsk, PeerHit } from "./peers/provider-peer.ts";
import { startSearxngPeer, type SearxngPeer } from "./peers/searxng.ts";

export const HOSTS = ["news.test", "blog.test", "wiki.test", "spam.test", "images.test"] as const;

export interface SearchWorld {
  site: PageSite;
  searxng: SearxngPeer;
  brave: BravePeer;
  resolver: StaticResolver;
  url(host: (typeof HOSTS)[number], path: string): string;
  /** Settings for an app searching this world (extra ones override). */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Both providers take `ms` over any question with `word` in it (a run held open), and answer the rest at once. */
  slowOver(word: string, ms: number): void;
  stop(): void;
}

const PAGES: { host: (typeof HOSTS)[number]; path: string; title: string; paragraphs: string[]; topics: string[] }[] = [
  {
    host: "news.test",
    path: "/bridge.html",
    title: "Council approves the river bridge",
    topics: ["bridge"],
    paragraphs: [
      "The city council approved the new river bridge on Tuesday after a two-year debate about its cost and design.",
      "Construction will begin in March and is expected to take eighteen months, according to the transport department.",
      "The bridge will carry two lanes of traffic, a protected cycle path and a wide walkway for pedestrians.",
    ],
  },
  {
    host: "blog.test",
    path: "/bridge-costs.html",
    title: "What the river bridge will cost",
    topics: ["bridge", "cost"],
    paragraphs: [
      "The river bridge will cost 42 million euros, most of it paid by the regional government.",
      "The council expects the bridge to open to traffic in September 2027.",
      "Critics argued that a tunnel would have been cheaper to maintain over fifty years.",
    ],
  },
  {
    host: "spam.test",
    path: "/bridge-rumours.html",
    title: "Bridge rumours",
    topics: ["bridge"],
    paragraphs: ["Rumour has it that the river bridge will be built entirely of gold bricks imported from far away."],
  },
  {
    host: "wiki.test",
    path: "/eiffel.html",
    title: "Eiffel Tower",
    topics: ["eiffel", "tower", "paris"],
    paragraphs: [
      "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
      "The tower was completed in 1889 as the entrance arch to the World's Fair.",
      "The Eiffel Tower is 330 metres tall and was designed by the engineering company of Gustave Eiffel.",
    ],
  },
];

export function startSearchWorld(options: { spawned?: boolean } = {}): SearchWorld {
  const site = startPageSite();
  for (const page of PAGES) site.put(page.path, article(page.title, page.paragraphs, { site: page.host }));
  // Each page has a path of its own, so one address serves them all when names cannot be resolved.
  const url = (host: string, path: string) => `http://${options.spawned ? "127.0.0.1" : host}:${site.port}${path}`;
  const answer = (ask: PeerAsk): PeerHit[] => {
    const words = ask.query.toLowerCase();
    return PAGES.filter((p) => p.topics.some((t) => words.includes(t))).map((p) => ({
      title: p.title,
      url: url(p.host, p.path),
      snippet: p.paragraphs[0]!,
    }));
  };
  const searxng = startSearxngPeer();
  const brave = startBravePeer();
  searxng.setAnswers(answer);
  // Brave knows the same pages in another order, so fusion has work to do.
  brave.setAnswers((ask) => answer(ask).reverse());
  const resolver = new StaticResolver(Object.fromEntries(HOSTS.map((h) => [h, ["127.0.0.1"]])));
  return {
    site,
    searxng,
    brave,
    resolver,
    url,
    env: (extra = {}) => ({
      SEARCH_PROVIDERS: "searxng,brave",
      SEARXNG_URL: searxng.url,
      BRAVE_URL: brave.url,
      BRAVE_API_KEY: "brave-test-token",
      FETCH_ALLOW_HOSTS: options.spawned ? `127.0.0.1:${site.port}` : HOSTS.map((h) => `${h}:${site.port}`).join(","),
      PROVIDER_TIMEOUT_MS: "2000",
      HEDGE_AFTER_MS: "500",
      ...extra,
    }),
    slowOver(word, ms) {
      const slow = (request: { params: unknown }) => (JSON.stringify(request.params).toLowerCase().includes(word) ? ms : 0);
      searxng.setLatency(slow);
      brave.setLatency(slow);
    },
    stop() {
      site.stop();
      searxng.stop();
      brave.stop();
    },
  };
}
