/**
 * Finds the main content of a cleaned document. Readability does the
 * finding; what it returns is then pruned of the boilerplate it keeps.
 */
import { Readability } from "@mozilla/readability";
import { type DomDocument, type DomElement } from "./dom.ts";
import { pruneArticle } from "./article-pruning.ts";

/** Readability gives up on documents larger than this many elements; the fallback takes over. */
const MAX_ELEMENTS_FOR_READABILITY = 60_000;

export interface MainContent {
  root: DomElement;
  /** A byline Readability found in the markup (it removes that line from the content). */
  byline: string | null;
}

/** Runs Readability on `document` (which it mutates); null when it finds nothing. */
function readabilityContent(document: DomDocument): MainContent | null {
  // Readability is typed against the DOM lib; linkedom's document is what it works on at runtime.
  const reader = new Readability(document as never, {
    keepClasses: true,
    serializer: (node: unknown) => node,
    maxElemsToParse: MAX_ELEMENTS_FOR_READABILITY,
  });
  let article: ReturnType<typeof reader.parse>;
  try {
    article = reader.parse();
  } catch {
    // Over the element budget, or a construct Readability trips on: the caller falls back.
    return null;
  }
  if (!article?.content) return null;
  return { root: article.content as unknown as DomElement, byline: article.byline?.trim() || null };
}

export function findMainContent(document: DomDocument): MainContent {
  const found = readabilityContent(document) ?? { root: document.body, byline: null };
  pruneArticle(found.root);
  return found;
}
