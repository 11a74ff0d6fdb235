/**
 * The local index: every page the service has read, searchable by Postgres
 * full-text search over its passages (GIN index; the same SQL on PGlite and
 * Postgres). The research engine uses it as one of its search providers.
 * Queries are OR-ed terms (prefix-matched when long), so a passage matching
 * more of the question ranks higher; the best passage of each page wins.
 */
import type { Database } from "../../db/client.ts";
import { searchPassages, type SourceScope } from "./queries.ts";
import { scopeOf } from "./source-scope.ts";
import { contentTerms } from "../terms.ts";

export interface LocalIndexHit {
  url: string;
  title: string | null;
  siteName: string | null;
  publishedAt: Date | null;
  heading: string | null;
  /** The best-matching passage of the page. */
  snippet: string;
  score: number;
}

export interface LocalSearchOptions {
  /** Domains or URL prefixes to keep to (a whitelist); empty or absent: everything. */
  domains?: string[];
  limit?: number;
  signal?: AbortSignal;
}

export function queryTerms(text: string, max = 16): string[] {
  return contentTerms(text, max);
}

export function toTsQuery(terms: string[]): string {
  return terms.map((t) => (t.length >= 5 ? `${t}:*` : t)).join(" | ");
}

export class LocalIndex {
  constructor(private readonly db: Database) {}

  async search(query: string, options: LocalSearchOptions = {}): Promise<LocalIndexHit[]> {
    options.signal?.throwIfAborted();
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const limit = Math.min(Math.max(options.limit ?? 10, 1), 100);
    let scope: SourceScope | undefined;
    if (options.domains?.length) {
      scope = scopeOf(options.domains).scope;
      if (scope.hosts.length === 0 && scope.prefixes.length === 0) return [];
    }
    const rows = await searchPassages(this.db, toTsQuery(terms), { scope, limit: limit * 4 });
    const seen = new Set<string>();
    const hits: LocalIndexHit[] = [];
    for (const row of rows) {
      if (seen.has(row.pageId)) continue;
      seen.add(row.pageId);
      hits.push({
        url: row.finalUrl,
        title: row.title,
        siteName: row.siteName,
        publishedAt: row.publishedAt,
        heading: row.heading,
        snippet: row.content,
        score: row.rank,
      });
      if (hits.length >= limit) break;
    }
    return hits;
  }
}
