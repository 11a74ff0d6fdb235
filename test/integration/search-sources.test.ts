/**
 * The research engine's search providers, each through its production
 * adapter against a real HTTP peer on loopback that speaks the provider's
 * wire format; the local index against a real database.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { LocalIndex } from "../../src/contents/local-index.ts";
import { splitPassages } from "../../src/contents/passages.ts";
import { savePage } from "../../src/contents/queries.ts";
import { newId } from "../../src/ids.ts";
import { BraveSource } from "../../src/research/sources/brave.ts";
import { ExaSource } from "../../src/research/sources/exa.ts";
import { LocalSource } from "../../src/research/sources/local.ts";
import { SearxngSource } from "../../src/research/sources/searxng.ts";
import { ProviderError, type SearchHit, type SearchOptions, type SearchSource } from "../../src/research/sources/source.ts";
import { TavilySource } from "../../src/research/sources/tavily.ts";
import { WikipediaSource } from "../../src/research/sources/wikipedia.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startBravePeer } from "../helpers/peers/brave.ts";
import { startExaPeer } from "../helpers/peers/exa.ts";
import { startCanary } from "../helpers/peers/pages.ts";
import type { PeerAnswers, PeerFault, PeerHit } from "../helpers/peers/provider-peer.ts";
import { startSearxngPeer } from "../helpers/peers/searxng.ts";
import { startTavilyPeer } from "../helpers/peers/tavily.ts";
import { startWikipediaPeer } from "../helpers/peers/wikipedia.ts";

const searxng = startSearxngPeer();
const searxngWithoutJson = startSearxngPeer({ formats: ["html"] });
const brave = startBravePeer();
const tavily = startTavilyPeer();
const exa = startExaPeer();
const wikipedia = startWikipediaPeer();
const peers = [searxng, searxngWithoutJson, brave, tavily, exa, wikipedia];
afterAll(() => peers.forEach((peer) => peer.stop()));
beforeEach(() => peers.forEach((peer) => peer.reset()));

/** One provider under test: its adapter, its peer, and what differs between wire formats. */
interface Case {
  name: string;
  peer: {
    url: string;
    requests: { target: string; headers: Record<string, string> }[];
    setLatency(ms: number): void;
    setFault(fault: PeerFault | null, times?: number): void;
    setAnswers(answers: PeerAnswers | null): void;
  };
  source: SearchSource;
  /** How many results the adapter asked for, when the API takes a count. */
  askedCount(): number | null;
  /** The URL a peer result comes back under. */
  urlOf(hit: PeerHit): string;
  dated: boolean;
}

const cases: Case[] = [
  {
    name: "searxng",
    peer: searxng,
    source: new SearxngSource({ baseUrl: searxng.url }),
    askedCount: () => null,
    urlOf: (h) => h.url,
    dated: true,
  },
  {
    name: "brave",
    peer: brave,
    source: new BraveSource({ apiKey: brave.token, baseUrl: brave.url }),
    askedCount: () => brave.last().params.count,
    urlOf: (h) => h.url,
    dated: true,
  },
  {
    name: "tavily",
    peer: tavily,
    source: new TavilySource({ apiKey: tavily.apiKey, baseUrl: tavily.url }),
    askedCount: () => tavily.last().params.max_results as number,
    urlOf: (h) => h.url,
    dated: true,
  },
  {
    name: "exa",
    peer: exa,
    source: new ExaSource({ apiKey: exa.apiKey, baseUrl: exa.url }),
    askedCount: () => exa.last().params.numResults as number,
    urlOf: (h) => h.url,
    dated: true,
  },
  {
    name: "wikipedia",
    peer: wikipedia,
    source: new WikipediaSource({ baseUrl: wikipedia.url }),
    askedCount: () => wikipedia.last().params.limit,
    urlOf: (h) => `${wikipedia.url}/wiki/${h.title.replace(/ /g, "_")}`,
    dated: false,
  },
];
const webCases = cases.filter((c) => c.name !== "wikipedia");
const sourceOf = (name: string) => cases.find((c) => c.name === name)!.source;

const options = (extra: Partial<SearchOptions> = {}): SearchOptions => ({ limit: 10, signal: AbortSignal.timeout(5_000), ...extra });

async function rejection(run: () => Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = performance.now();
  try {
    await run();
  } catch (error) {
    return { error: error as Error, ms: performance.now() - started };
  }
  throw new Error("expected the search to reject");
}

const bridges: PeerHit[] = [
  {
    title: "Tower Bridge",
    url: "https://bridges.example.org/tower",
    snippet: "Tower Bridge is a bascule & suspension bridge over the river in London, it's 244 m long.",
    publishedAt: "2026-03-04T10:00:00.000Z",
  },
  {
    title: "River crossings",
    url: "https://news.example.com/crossings",
    snippet: "Which bridges cross the river? A list < 20 entries long.",
  },
];

describe("results come back as title, URL, a snippet without markup, and a date when the provider has one", () => {
  for (const c of cases) {
    test(`${c.name} maps its wire format`, async () => {
      c.peer.setAnswers({ "river bridges": bridges });
      const hits = await c.source.search("river bridges", options());
      expect(hits).toEqual(
        bridges.map(
          (hit): SearchHit => ({
            url: c.urlOf(hit),
            title: hit.title,
            snippet: hit.snippet,
            publishedAt: c.dated ? (hit.publishedAt ?? null) : null,
          }),
        ),
      );
    });
  }

  test("brave's and wikipedia's match markup and entities arrive on the wire and leave the adapter", async () => {
    brave.setAnswers({ "river bridges": bridges });
    wikipedia.setAnswers({ "river bridges": bridges });
    const raw = (await (
      await fetch(`${brave.url}/res/v1/web/search?q=river+bridges`, { headers: { "x-subscription-token": brave.token } })
    ).json()) as { web: { results: { description: string }[] } };
    expect(raw.web.results[0]?.description).toContain("over the <strong>river</strong> in London, it&#x27;s");
    expect(raw.web.results[0]?.description).toContain("&amp;");
    const wiki = (await (
      await fetch(`${wikipedia.url}/w/rest.php/v1/search/page?q=river+bridges`, { headers: { "user-agent": "test (ops@example.org)" } })
    ).json()) as { pages: { excerpt: string }[] };
    expect(wiki.pages[1]?.excerpt).toContain('<span class="searchmatch">bridges</span>');
    const [braveHit] = await sourceOf("brave").search("river bridges", options());
    const [, wikiHit] = await sourceOf("wikipedia").search("river bridges", options());
    expect(braveHit!.snippet).toBe(bridges[0]!.snippet);
    expect(wikiHit!.snippet).toBe(bridges[1]!.snippet);
  });

  for (const c of cases) {
    test(`${c.name}: nothing found is an empty list, not an error`, async () => {
      c.peer.setAnswers({ "no such thing": [] });
      expect(await c.source.search("no such thing", options())).toEqual([]);
    });
  }

  test("exa takes the snippet from the text when a result has no highlights, and the host when it has no title", async () => {
    exa.setAnswers({
      bridges: [
        {
          title: "",
          url: "https://bridges.example.org/x",
          snippet: "",
          raw: { title: null, highlights: null, text: "Full <b>text</b> of the page." },
        },
      ],
    });
    expect(await sourceOf("exa").search("bridges", options())).toEqual([
      { url: "https://bridges.example.org/x", title: "bridges.example.org", snippet: "Full text of the page.", publishedAt: null },
    ]);
  });

  test("wikipedia links a page by its key, encoded as MediaWiki links it", async () => {
    wikipedia.setAnswers({
      "rock bands": [
        { title: "AC/DC (band)", url: "", snippet: "Australian rock band" },
        { title: "Café", url: "", snippet: "x", raw: { key: "Café:Crème?" } },
      ],
    });
    const hits = await new WikipediaSource({ baseUrl: wikipedia.url }).search("rock bands", options());
    expect(hits.map((h) => h.url)).toEqual([`${wikipedia.url}/wiki/AC/DC_(band)`, `${wikipedia.url}/wiki/Caf%C3%A9:Cr%C3%A8me%3F`]);
  });
});

describe("a search never returns more than the limit, and asks for no more than the provider allows", () => {
  for (const c of cases) {
    test(`${c.name} returns at most the limit and asks for it`, async () => {
      const hits = await c.source.search("harbour tunnel", options({ limit: 3 }));
      expect(hits).toHaveLength(3);
      if (c.askedCount() !== null) expect(c.askedCount()).toBe(3);
    });

    test(`${c.name} asks nothing for a limit of 0`, async () => {
      expect(await c.source.search("harbour tunnel", options({ limit: 0 }))).toEqual([]);
      expect(c.peer.requests).toHaveLength(0);
    });
  }

  test("a limit above the provider's maximum is clamped to it, so the provider does not refuse the call", async () => {
    const expected: Record<string, number | null> = { searxng: null, brave: 20, tavily: 20, exa: 50, wikipedia: 50 };
    for (const c of cases) {
      const hits = await c.source.search("harbour tunnel", options({ limit: 50 }));
      expect({ name: c.name, asked: c.askedCount() }).toEqual({ name: c.name, asked: expected[c.name]! });
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.length).toBeLessThanOrEqual(50);
    }
  });
});

describe("only http(s) URLs come back, each once", () => {
  const messy: PeerHit[] = [
    { title: "Script", url: "javascript:alert(1)", snippet: "x" },
    { title: "Files", url: "ftp://files.example.org/bridges.zip", snippet: "x" },
    { title: "Bridges", url: "https://bridges.example.org/", snippet: "first" },
    { title: "Bridges again", url: "https://bridges.example.org/#history", snippet: "same page" },
    { title: "Bridges once more", url: "https://bridges.example.org/", snippet: "duplicate" },
    { title: "Tunnels", url: "http://tunnels.example.com/list", snippet: "second" },
  ];
  for (const c of webCases) {
    test(`${c.name} drops other schemes and duplicates`, async () => {
      c.peer.setAnswers({ crossings: messy });
      const hits = await c.source.search("crossings", options());
      expect(hits.map((h) => h.url)).toEqual(["https://bridges.example.org/", "http://tunnels.example.com/list"]);
    });
  }

  test("wikipedia returns a page listed twice once", async () => {
    wikipedia.setAnswers({
      crossings: [
        { title: "Tower Bridge", url: "", snippet: "a" },
        { title: "Tower Bridge", url: "", snippet: "b" },
      ],
    });
    expect(await sourceOf("wikipedia").search("crossings", options())).toHaveLength(1);
  });
});

describe("a result list of the wrong shape is a ProviderError; one odd item is dropped", () => {
  test("an item without a URL among good ones is dropped", async () => {
    searxng.setAnswers({
      crossings: [
        { title: "Good", url: "https://bridges.example.org/a", snippet: "fine" },
        { title: "Infobox", url: "https://x.example/", snippet: "", raw: { url: null } },
      ],
    });
    expect((await sourceOf("searxng").search("crossings", options())).map((h) => h.title)).toEqual(["Good"]);
  });

  for (const c of cases) {
    test(`${c.name}: a list where no item has the expected fields is a ProviderError`, async () => {
      c.peer.setAnswers({ crossings: [{ title: "A", url: "https://a.example/", snippet: "", raw: { url: 42, key: 42 } }] });
      const { error } = await rejection(() => c.source.search("crossings", options()));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toBe(`${c.name}: answered results of an unexpected shape`);
    });
  }
});

describe("keys travel in the provider's header only; a refused key is the provider's error as a ProviderError", () => {
  test("brave sends X-Subscription-Token and Accept: application/json", async () => {
    await sourceOf("brave").search("bridges", options());
    expect(brave.last().headers).toMatchObject({ "x-subscription-token": brave.token, accept: "application/json" });
  });

  test("tavily sends Authorization: Bearer and no key in the body", async () => {
    await sourceOf("tavily").search("bridges", options());
    expect(tavily.last().headers.authorization).toBe(`Bearer ${tavily.apiKey}`);
    expect(JSON.stringify(tavily.last().params.body)).not.toContain(tavily.apiKey);
  });

  test("exa sends x-api-key", async () => {
    await sourceOf("exa").search("bridges", options());
    expect(exa.last().headers["x-api-key"]).toBe(exa.apiKey);
  });

  test("no request URL carries a key", async () => {
    for (const c of cases) await c.source.search("bridges", options());
    for (const [peer, key] of [
      [brave, brave.token],
      [tavily, tavily.apiKey],
      [exa, exa.apiKey],
    ] as const)
      expect(peer.last().target).not.toContain(key);
  });

  const wrongKey = "sk-wrong-0123456789";
  const refused: [string, SearchSource, string][] = [
    ["brave", new BraveSource({ apiKey: wrongKey, baseUrl: brave.url }), "brave: answered HTTP 422"],
    ["tavily", new TavilySource({ apiKey: wrongKey, baseUrl: tavily.url }), "tavily: answered HTTP 401"],
    ["exa", new ExaSource({ apiKey: wrongKey, baseUrl: exa.url }), "exa: answered HTTP 401"],
  ];
  for (const [name, source, message] of refused) {
    test(`${name}: a wrong key is refused by the provider and the error does not quote the key`, async () => {
      const { error } = await rejection(() => source.search("bridges", options()));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toBe(message);
      expect(`${error.message} ${error.stack}`).not.toContain(wrongKey);
    });
  }

  test("a keyed provider's redirect is not followed, so its key never reaches another host", async () => {
    const canary = startCanary();
    const redirector = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response(null, { status: 307, headers: { location: `http://127.0.0.1:${canary.port}/steal` } }),
    });
    const base = `http://127.0.0.1:${redirector.port}`;
    try {
      for (const source of [
        new BraveSource({ apiKey: "k1", baseUrl: base }),
        new TavilySource({ apiKey: "k2", baseUrl: base }),
        new ExaSource({ apiKey: "k3", baseUrl: base }),
      ]) {
        const { error } = await rejection(() => source.search("bridges", options()));
        expect(error.message).toBe(`${source.name}: answered HTTP 307`);
      }
      expect(canary.requests()).toBe(0);
    } finally {
      redirector.stop(true);
      canary.stop();
    }
  });

  test("searxng: an instance without the JSON format enabled (its 403) is a ProviderError", async () => {
    const { error } = await rejection(() => new SearxngSource({ baseUrl: searxngWithoutJson.url }).search("bridges", options()));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe("searxng: answered HTTP 403");
  });

  test("wikipedia sends a descriptive User-Agent; a library default is refused by Wikimedia's policy and is a ProviderError", async () => {
    await sourceOf("wikipedia").search("bridges", options());
    expect(wikipedia.last().headers["user-agent"]).toStartWith("agentic-search/");
    const { error } = await rejection(() =>
      new WikipediaSource({ baseUrl: wikipedia.url, userAgent: "Bun/1.4.5" }).search("bridges", options()),
    );
    expect(error.message).toBe("wikipedia: answered HTTP 403");
  });
});

describe("domain lists are sent in the provider's own terms", () => {
  const one = { hosts: ["bridges.example.org"], prefixes: [] };
  const two = { hosts: ["bridges.example.org", "news.example.com"], prefixes: [] };

  test("searxng: a whitelist of one host becomes site: in q; longer ones are filtered afterwards only", async () => {
    await sourceOf("searxng").search("bridges", options({ whitelist: one }));
    expect(searxng.last().params).toMatchObject({ q: "bridges site:bridges.example.org", format: "json", pageno: "1", safesearch: "1" });
    await sourceOf("searxng").search("bridges", options({ whitelist: { hosts: [], prefixes: ["https://docs.example.net/guide"] } }));
    expect(searxng.last().params.q).toBe("bridges site:docs.example.net");
    await sourceOf("searxng").search("bridges", options({ whitelist: two }));
    expect(searxng.last().params.q).toBe("bridges");
  });

  test("searxng sends its language when configured", async () => {
    await new SearxngSource({ baseUrl: searxng.url, language: "de-CH", safesearch: 2 }).search("Brücken", options());
    expect(searxng.last().params).toMatchObject({ q: "Brücken", language: "de-CH", safesearch: "2" });
  });

  test("brave: site: operators joined by OR for the whitelist, -site: for blacklisted hosts inside it", async () => {
    await sourceOf("brave").search(
      "bridges",
      options({ whitelist: two, blacklist: { hosts: ["blog.news.example.com", "elsewhere.example.net"], prefixes: [] } }),
    );
    expect(brave.last().params.q).toBe("bridges (site:bridges.example.org OR site:news.example.com) -site:blog.news.example.com");
    await sourceOf("brave").search(
      "bridges",
      options({ blacklist: { hosts: ["spam.example.net"], prefixes: ["https://news.example.com/ads"] } }),
    );
    expect(brave.last().params).toMatchObject({ q: "bridges -site:spam.example.net", sites: [], excludedSites: ["spam.example.net"] });
  });

  test("brave: operators stay within 400 characters and 50 words; a whitelist too long is not cut but left out", async () => {
    const many = { hosts: Array.from({ length: 60 }, (_, i) => `site-number-${i}.example.org`), prefixes: [] };
    const longQuery = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    await sourceOf("brave").search(longQuery, options({ whitelist: many }));
    expect(brave.last().params.sites).toEqual([]);
    await sourceOf("brave").search("bridges", options({ blacklist: many }));
    const q = brave.last().params.q!;
    expect(q.length).toBeLessThanOrEqual(400);
    expect(brave.last().params.excludedSites.length).toBeGreaterThan(5);
    expect(brave.last().params.excludedSites.length).toBeLessThan(60);
  });

  test("tavily: include_domains and exclude_domains, basic depth", async () => {
    await sourceOf("tavily").search(
      "bridges",
      options({
        whitelist: { hosts: ["bridges.example.org"], prefixes: ["https://news.example.com/world"] },
        blacklist: { hosts: ["spam.example.net"], prefixes: [] },
      }),
    );
    expect(tavily.last().params).toMatchObject({
      query: "bridges",
      include_domains: ["bridges.example.org", "news.example.com"],
      exclude_domains: ["spam.example.net"],
      search_depth: "basic",
    });
  });

  test("exa: includeDomains for a whitelist (never with excludeDomains), excludeDomains for a blacklist alone, highlights asked", async () => {
    await sourceOf("exa").search("bridges", options({ whitelist: two, blacklist: { hosts: ["spam.example.net"], prefixes: [] } }));
    expect(exa.last().params.body).toEqual({
      query: "bridges",
      numResults: 10,
      type: "auto",
      includeDomains: two.hosts,
      contents: { highlights: true },
    });
    await sourceOf("exa").search("bridges", options({ blacklist: { hosts: ["spam.example.net"], prefixes: [] } }));
    expect(exa.last().params.body).toEqual({
      query: "bridges",
      numResults: 10,
      type: "auto",
      excludeDomains: ["spam.example.net"],
      contents: { highlights: true },
    });
  });

  test("wikipedia: a whitelist without the wiki, or a blacklist covering it, skips the call", async () => {
    expect(await sourceOf("wikipedia").search("bridges", options({ whitelist: one }))).toEqual([]);
    expect(await sourceOf("wikipedia").search("bridges", options({ blacklist: { hosts: ["127.0.0.1"], prefixes: [] } }))).toEqual([]);
    expect(wikipedia.requests).toHaveLength(0);
    expect(await sourceOf("wikipedia").search("bridges", options({ whitelist: { hosts: ["127.0.0.1"], prefixes: [] } }))).not.toEqual([]);
    expect(wikipedia.requests).toHaveLength(1);
  });
});

describe("hits outside the whitelist or inside the blacklist are removed, whatever the provider returned", () => {
  const leaky: PeerHit[] = [
    { title: "Allowed", url: "https://allowed.example.org/a", snippet: "kept" },
    { title: "Blacklisted part", url: "https://blog.allowed.example.org/b", snippet: "dropped" },
    { title: "Elsewhere", url: "https://elsewhere.example.net/c", snippet: "dropped" },
    { title: "Allowed www", url: "https://www.allowed.example.org/d", snippet: "kept" },
  ];
  for (const c of webCases) {
    test(`${c.name} keeps only what the lists allow`, async () => {
      c.peer.setAnswers({ bridges: leaky });
      const hits = await c.source.search(
        "bridges",
        options({
          whitelist: { hosts: ["allowed.example.org"], prefixes: [] },
          blacklist: { hosts: ["blog.allowed.example.org"], prefixes: [] },
        }),
      );
      expect(hits.map((h) => h.title)).toEqual(["Allowed", "Allowed www"]);
    });
  }

  test("wikipedia keeps only pages under a whitelisted prefix and drops blacklisted ones", async () => {
    wikipedia.setAnswers({
      bridges: ["Tower Bridge", "Tower of London", "London Bridge"].map((title) => ({ title, url: "", snippet: title })),
    });
    const hits = await sourceOf("wikipedia").search(
      "bridges",
      options({
        whitelist: { hosts: [], prefixes: [`${wikipedia.url}/wiki/tower`] },
        blacklist: { hosts: [], prefixes: [`${wikipedia.url}/wiki/tower_of`] },
      }),
    );
    expect(hits.map((h) => h.title)).toEqual(["Tower Bridge"]);
  });
});

describe("a misbehaving provider is a ProviderError, or the caller's abort at its deadline, never a hang", () => {
  const DEADLINE_MS = 400;
  const answered: PeerFault[] = ["500", "429", "garbage", "shape", "html"];
  for (const c of cases) {
    for (const fault of answered) {
      test(`${c.name}: "${fault}" is a ProviderError, well before the deadline`, async () => {
        c.peer.setFault(fault);
        const { error, ms } = await rejection(() => c.source.search("bridges", options({ signal: AbortSignal.timeout(DEADLINE_MS) })));
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as ProviderError).provider).toBe(c.name);
        expect(ms).toBeLessThan(DEADLINE_MS / 2);
      });
    }
    for (const fault of ["endless", "hang"] as const) {
      test(`${c.name}: "${fault}" ends with the caller's signal, at its deadline`, async () => {
        c.peer.setFault(fault);
        const { error, ms } = await rejection(() => c.source.search("bridges", options({ signal: AbortSignal.timeout(DEADLINE_MS) })));
        expect(error.name).toBe("TimeoutError");
        expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 25);
        expect(ms).toBeLessThan(DEADLINE_MS + 250);
      });
    }
  }

  test("a provider nobody listens on is a ProviderError", async () => {
    const gone = startWikipediaPeer();
    gone.stop();
    const { error } = await rejection(() => new WikipediaSource({ baseUrl: gone.url }).search("bridges", options()));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toStartWith("wikipedia: request failed");
  });

  test("a key that cannot be a header value is a ProviderError that does not quote it", async () => {
    const { error } = await rejection(() =>
      new BraveSource({ apiKey: "bad\r\nkey-secret", baseUrl: brave.url }).search("bridges", options()),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).not.toContain("key-secret");
  });
});

describe("an abort rejects promptly, wherever the request is", () => {
  for (const c of cases) {
    test(`${c.name}: aborted while waiting for headers`, async () => {
      c.peer.setLatency(5_000);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const { error, ms } = await rejection(() => c.source.search("bridges", options({ signal: controller.signal })));
      expect(error.name).toBe("AbortError");
      expect(ms).toBeLessThan(300);
      expect(c.peer.requests).toHaveLength(1);
    });

    test(`${c.name}: aborted while reading the body`, async () => {
      c.peer.setFault("endless");
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const { error, ms } = await rejection(() => c.source.search("bridges", options({ signal: controller.signal })));
      expect(error.name).toBe("AbortError");
      expect(ms).toBeLessThan(350);
    });

    test(`${c.name}: an already aborted signal never reaches the provider`, async () => {
      const { error } = await rejection(() => c.source.search("bridges", options({ signal: AbortSignal.abort() })));
      expect(error.name).toBe("AbortError");
      expect(c.peer.requests).toHaveLength(0);
    });
  }
});

describe("the peers' latency and faults are driven per request (what a benchmark uses)", () => {
  test("a latency function is drawn for each request and delays its answer", async () => {
    const drawn: string[] = [];
    brave.setLatency((request) => (drawn.push(request.params.q ?? ""), request.params.q === "slow" ? 200 : 0));
    const started = performance.now();
    await sourceOf("brave").search("fast", options());
    const fast = performance.now() - started;
    await sourceOf("brave").search("slow", options());
    expect(drawn).toEqual(["fast", "slow"]);
    expect(fast).toBeLessThan(100);
    expect(performance.now() - started - fast).toBeGreaterThanOrEqual(190);
  });

  test("a fault for a number of requests passes, and then the peer answers again", async () => {
    tavily.setFault("500", 1);
    await expect(sourceOf("tavily").search("bridges", options())).rejects.toBeInstanceOf(ProviderError);
    expect(await sourceOf("tavily").search("bridges", options())).toHaveLength(10);
  });

  test("a fault function chooses per request", async () => {
    exa.setFault((request) => (request.params.query === "flaky" ? "429" : null));
    await expect(sourceOf("exa").search("flaky", options())).rejects.toThrow("exa: answered HTTP 429");
    expect(await sourceOf("exa").search("steady", options({ limit: 2 }))).toHaveLength(2);
  });
});

describe("the local index is a source over the pages the service has read", () => {
  let database: TestDatabase;
  let local: LocalSource;
  const towerMarkdown =
    "# Tower Bridge\n\nTower Bridge is a bascule and suspension bridge in London, built between 1886 and 1894 across the river Thames.\n\n## Opening\n\nThe bascules are raised about eight hundred times a year so that river traffic can pass.";
  const tunnelMarkdown =
    "# Channel Tunnel\n\nThe Channel Tunnel is a railway tunnel beneath the English Channel; no bridge crosses that stretch of sea.";

  beforeAll(async () => {
    database = await freshDatabase();
    const store = (url: string, title: string, markdown: string, publishedAt: Date | null) =>
      savePage(
        database.handle.db,
        {
          id: newId("page"),
          url,
          finalUrl: url,
          host: new URL(url).hostname,
          contentType: "text/html",
          title,
          publishedAt,
          html: "",
          markdown,
          text: markdown,
          wordCount: 40,
          tokenCount: 60,
          fetchedAt: new Date(),
        },
        splitPassages(markdown),
      );
    await store("https://bridges.example.org/tower", "Tower Bridge", towerMarkdown, new Date("2026-03-04T10:00:00Z"));
    await store("https://tunnels.example.com/channel", "Channel Tunnel", tunnelMarkdown, null);
    local = new LocalSource(new LocalIndex(database.handle.db));
  });
  afterAll(() => database.drop());

  test("finds stored pages and quotes the best passage as the snippet", async () => {
    const hits = await local.search("bascule bridge london", options());
    expect(hits[0]).toEqual({
      url: "https://bridges.example.org/tower",
      title: "Tower Bridge",
      snippet: splitPassages(towerMarkdown)[0]!.content,
      publishedAt: "2026-03-04T10:00:00.000Z",
    });
  });

  test("keeps to the whitelist and drops the blacklist", async () => {
    const only = await local.search("bridge", options({ whitelist: { hosts: ["tunnels.example.com"], prefixes: [] } }));
    expect(only.map((h) => h.url)).toEqual(["https://tunnels.example.com/channel"]);
    const prefixed = await local.search("bridge", options({ whitelist: { hosts: [], prefixes: ["https://bridges.example.org/tow"] } }));
    expect(prefixed.map((h) => h.url)).toEqual(["https://bridges.example.org/tower"]);
    const without = await local.search("bridge", options({ blacklist: { hosts: ["bridges.example.org"], prefixes: [] } }));
    expect(without.map((h) => h.url)).toEqual(["https://tunnels.example.com/channel"]);
  });

  test("never returns more than the limit", async () => {
    expect(await local.search("bridge", options())).toHaveLength(2);
    expect(await local.search("bridge", options({ limit: 1 }))).toHaveLength(1);
  });

  test("an aborted signal rejects", async () => {
    await expect(local.search("bridge", options({ signal: AbortSignal.abort() }))).rejects.toThrow();
  });
});
