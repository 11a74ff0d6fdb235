/**
 * The answer bench's stand-in for a web search engine: BM25 over each page's
 * title and text, held in memory. It knows only the pages, never the
 * questions, so a question whose page it does not rank near the top fails
 * the way it would on the real web.
 *
 * Terms are lowercased words with a light plural stem and English function
 * words dropped; a title word counts as three of the text's, as engines
 * weigh titles.
 */

export interface IndexedPage {
  title: string;
  text: string;
}

export interface PageHit {
  page: number;
  score: number;
  /** The page's sentence that best matches the query, or its opening words. */
  snippet: string;
}

const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 3;
const SNIPPET_MAX = 300;
const OPENING = 200;

const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its of on or " +
    "that the their them there these they this those to was were what when where which who whom whose why will with " +
    "would you your about after before than then also any all not no"
  ).split(" "),
);

function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

export function searchTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => (w.length > 1 || /\d/.test(w)) && !STOPWORDS.has(w)).map(stem);
}

export class PageIndex {
  private readonly postings = new Map<string, { page: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private readonly averageLength: number;

  constructor(private readonly pages: IndexedPage[]) {
    pages.forEach((page, i) => {
      const counts = new Map<string, number>();
      for (const term of searchTerms(page.title)) counts.set(term, (counts.get(term) ?? 0) + TITLE_WEIGHT);
      for (const term of searchTerms(page.text)) counts.set(term, (counts.get(term) ?? 0) + 1);
      let length = 0;
      for (const [term, tf] of counts) {
        length += tf;
        let list = this.postings.get(term);
        if (!list) this.postings.set(term, (list = []));
        list.push({ page: i, tf });
      }
      this.lengths.push(length);
    });
    this.averageLength = this.lengths.reduce((s, n) => s + n, 0) / Math.max(1, pages.length);
  }

  private idf(term: string): number {
    const n = this.postings.get(term)?.length ?? 0;
    return Math.log(1 + (this.pages.length - n + 0.5) / (n + 0.5));
  }

  /** The best `limit` pages for the query (only pages sharing a term with it), with snippets. */
  search(query: string, limit: number, keep: (page: number) => boolean = () => true): PageHit[] {
    const terms = [...new Set(searchTerms(query))];
    const scores = new Map<number, number>();
    for (const term of terms) {
      const idf = this.idf(term);
      for (const { page, tf } of this.postings.get(term) ?? []) {
        const norm = K1 * (1 - B + (B * this.lengths[page]!) / this.averageLength);
        scores.set(page, (scores.get(page) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    return [...scores]
      .filter(([page]) => keep(page))
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([page, score]) => ({ page, score, snippet: this.snippet(this.pages[page]!.text, terms) }));
  }

  private snippet(text: string, terms: string[]): string {
    const weights = new Map(terms.map((t) => [t, this.idf(t)]));
    let best = "";
    let bestScore = 0;
    for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
      const own = new Set(searchTerms(sentence));
      let score = 0;
      for (const [term, weight] of weights) if (own.has(term)) score += weight;
      if (score > bestScore) [best, bestScore] = [sentence, score];
    }
    const chosen = best.trim() || text.slice(0, OPENING);
    return chosen.length > SNIPPET_MAX ? `${chosen.slice(0, SNIPPET_MAX - 1)}…` : chosen.trim();
  }
}
