/**
 * What every adapter does to a provider's results before the engine sees
 * them: markup out of titles and snippets, dates as ISO 8601, only http(s)
 * URLs, no duplicates, the caller's domain lists applied exactly (providers'
 * own filters are approximate), and never more than the limit.
 */
import { inScope, isEmptyScope, type SourceScope } from "../../contents/source-scope.ts";
import type { SearchHit, SearchOptions } from "./source.ts";

const MAX_SNIPPET_CHARS = 1_000;

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  middot: "·",
  copy: "©",
  reg: "®",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Provider text as prose: tags (`<strong>`, `<span class="searchmatch">`) removed, entities decoded, spaces collapsed. */
export function plainText(markup: string | null | undefined): string {
  if (!markup) return "";
  // Only things shaped like tags go, so "a < b" in a snippet survives.
  const text = decodeEntities(markup.replace(/<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/gi, ""))
    .replace(/\s+/g, " ")
    .trim();
  return text.length > MAX_SNIPPET_CHARS ? `${text.slice(0, MAX_SNIPPET_CHARS - 1).trimEnd()}…` : text;
}

/**
 * A provider's date as ISO 8601, or null. Dates without a zone
 * ("2024-03-01T10:00:00", as SearXNG and Brave send them) are read as UTC;
 * human ones ("3 days ago") are not dates.
 */
export function isoDate(value: unknown): string | null {
  if (typeof value !== "string" || !value.trim()) return null;
  let text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) text += "T00:00:00Z";
  else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) text = `${text.replace(" ", "T")}Z`;
  else if (!/^\d{4}-\d{2}-\d{2}T/.test(text) && !/\b(GMT|UTC)\b|[+-]\d{4}$/.test(text)) return null;
  const time = Date.parse(text);
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}

/** A hit from a provider's fields: markup out of the title and snippet, and the first of `dates` that reads as one (isoDate). */
export function hitFrom(url: string, title: string | null | undefined, snippet: string | null | undefined, ...dates: unknown[]): SearchHit {
  let publishedAt: string | null = null;
  for (const date of dates) {
    publishedAt = isoDate(date);
    if (publishedAt) break;
  }
  return { url, title: plainText(title), snippet: plainText(snippet), publishedAt };
}

/** Whether a provider is asked at all: not for a limit of 0, and never once the caller has gone (their abort is thrown). */
export function wantsHits(options: SearchOptions): boolean {
  options.signal.throwIfAborted();
  return options.limit > 0;
}

/** A scope that restricts anything, or null. */
export const activeScope = (scope: SourceScope | null | undefined): SourceScope | null => (scope && !isEmptyScope(scope) ? scope : null);

/** Hosts a provider's domain filter can take for a whitelist: its hosts, and the hosts of its URL prefixes (wider, filtered again after). */
export function whitelistHosts(scope: SourceScope | null | undefined): string[] {
  const active = activeScope(scope);
  if (!active) return [];
  const hosts = new Set(active.hosts);
  for (const prefix of active.prefixes) {
    try {
      hosts.add(new URL(prefix).hostname.replace(/^www\./, ""));
    } catch {
      // A prefix that is not a URL cannot name a host; the exact filter still applies.
    }
  }
  return [...hosts];
}

/** Hosts a provider may exclude for a blacklist: whole hosts only, since excluding a prefix's host would drop too much. */
export const blacklistHosts = (scope: SourceScope | null | undefined): string[] => [...new Set(activeScope(scope)?.hosts ?? [])];

/** http(s) URLs only, each once (fragments ignored), the domain lists applied, at most `limit`. */
export function finishHits(hits: SearchHit[], options: SearchOptions): SearchHit[] {
  const whitelist = activeScope(options.whitelist);
  const blacklist = activeScope(options.blacklist);
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const hit of hits) {
    if (out.length >= options.limit) break;
    let url: URL;
    try {
      url = new URL(hit.url.trim());
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    if (whitelist && !inScope(url.href, whitelist)) continue;
    if (blacklist && inScope(url.href, blacklist)) continue;
    const key = url.href.replace(/#.*$/, "");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...hit, url: url.href, title: hit.title || url.hostname });
  }
  return out;
}
