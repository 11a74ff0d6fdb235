/**
 * The passages of stored pages, cut and counted once per stored version
 * instead of once per search that reads them. Pages people ask about come
 * back in many searches; cutting a page's markdown into passages and
 * counting their tokens was a third of a search's CPU when a thousand
 * searches read the same pages (bench:streams). A version is the row's id
 * and its fetch time: a page read again is a new entry, and the old one
 * ages out. Bounded by the characters it holds, least recently used first.
 */
import type { PageText } from "../contents/queries.ts";
import { splitPassages } from "../contents/passages.ts";
import { countTokens } from "../tokens.ts";

export interface PagePassage {
  text: string;
  heading: string | null;
  tokens: number;
}

interface Entry {
  passages: PagePassage[];
  chars: number;
}

export class PassageCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(private readonly maxChars = 8_000_000) {}

  passagesOf(page: Pick<PageText, "id" | "fetchedAt" | "markdown">): PagePassage[] {
    const key = `${page.id}@${page.fetchedAt.getTime()}`;
    const hit = this.entries.get(key);
    if (hit) {
      // Most recently used goes to the back: the front is evicted first.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.passages;
    }
    const passages = splitPassages(page.markdown).map((p) => ({ text: p.content, heading: p.heading, tokens: countTokens(p.content) }));
    const chars = passages.reduce((sum, p) => sum + p.text.length, 0);
    // A page larger than the whole cache is cut for this search and not kept.
    if (chars > this.maxChars) return passages;
    this.entries.set(key, { passages, chars });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
    return passages;
  }
}
