/**
 * A second opinion on where the article is, in the manner of trafilatura:
 * content management systems name their article containers in a handful of
 * conventional ways ("entry-content", "article-body", itemprop=articleBody,
 * <article>, "#content", <main>), so the first container that matches the
 * most specific convention, once pruned of boilerplate, is usually the
 * article, including the short or list-heavy articles that Readability's
 * paragraph scoring passes over. When no convention matches, the prose
 * blocks of the whole page are gathered instead.
 *
 * The conventions below follow the tiers trafilatura's documentation and
 * source describe (written here from the common CMS themes: WordPress,
 * Drupal, TYPO3, news sites), ordered from most to least specific.
 */
import { type DomElement, type DomNode, isElement, isText, tagOf, walkElements } from "./dom.ts";
import { HEADINGS, LIST_ITEMS } from "./element-kinds.ts";
import { isLinkDense, pruneArticle } from "./article-pruning.ts";
import { judgeByName } from "./boilerplate.ts";

const CONTAINER_TAGS = new Set(["article", "div", "main", "section"]);

/** Tiers of container conventions; each is (classes and id, lowercased) -> match. */
const TIERS: ((names: string, element: DomElement) => boolean)[] = [
  (names, element) =>
    element.getAttribute("itemprop") === "articleBody" ||
    /^(?:post|entry)$/.test((element.getAttribute("class") ?? "").trim()) ||
    /post[-_]?(?:text|body|entry|content|inner[-_]wrapper)|article[-_]{0,2}(?:text|content|body|container)|entry[-_]content|articlebody|page[-_]content|text[-_]content|body[-_]text|art[-_]content/.test(
      names,
    ),
  (_names, element) => tagOf(element) === "article",
  (names, element) =>
    element.getAttribute("role") === "article" ||
    /post[-_]bodycopy|story[-_]?content|postarea|theme[-_]content|blog[-_]content|section[-_]content|single[-_](?:content|post)|main[-_]column|wpb_text_column|story[-_]body|field[-_]body|fulltext/.test(
      names,
    ) ||
    /^(?:text|cell|story)$/.test((element.getAttribute("class") ?? "").trim()) ||
    /^(?:article|story)$/.test(element.getAttribute("id") ?? "") ||
    (element.getAttribute("id") ?? "").startsWith("primary") ||
    (element.getAttribute("class") ?? "").startsWith("article "),
  (names, element) =>
    /content[-_]{1,2}(?:main|body)|contentbody|main[-_]content/.test(names) ||
    element.getAttribute("id") === "content" ||
    (element.getAttribute("class") ?? "").trim() === "content",
  (_names, element) =>
    tagOf(element) === "main" ||
    element.getAttribute("role") === "main" ||
    (element.getAttribute("class") ?? "").startsWith("main") ||
    (element.getAttribute("id") ?? "").startsWith("main"),
];

/** Elements whose text is prose; text outside all of them is debris (dates, labels, button text). */
const PROSE = new Set(["p", ...HEADINGS, ...LIST_ITEMS, "td", "th", "blockquote", "pre", "code", "q", "caption", "math"]);

/** Below this much text an extraction counts as having found nothing (trafilatura's default is 250). */
export const MIN_EXTRACTED_CHARS = 250;

const textLength = (element: DomElement) => (element.textContent ?? "").replace(/\s+/g, " ").trim().length;

/** The first container of each tier, found in one pass. */
function containersByTier(body: DomElement): (DomElement | null)[] {
  const found: (DomElement | null)[] = TIERS.map(() => null);
  walkElements(body, (element) => {
    if (!CONTAINER_TAGS.has(tagOf(element))) return true;
    const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`.toLowerCase();
    TIERS.forEach((matches, tier) => {
      if (found[tier] === null && matches(names, element)) found[tier] = element;
    });
    return true;
  });
  return found;
}

/** Removes boilerplate-named blocks, unless that would remove almost everything (then the names lied). */
function pruneNamedBoilerplate(container: DomElement): void {
  const before = textLength(container);
  const removals: DomElement[] = [];
  walkElements(container, (element) => {
    const verdict = judgeByName(element);
    if (verdict.rule && !verdict.contentNamed) {
      removals.push(element);
      return false;
    }
    return true;
  });
  const removed = removals.reduce((sum, element) => sum + textLength(element), 0);
  if (before > 0 && (before - removed) * 7 < before) return;
  for (const element of removals) element.remove();
}

/** Drops text that sits in no prose element, when the container has prose enough to stand on. */
function dropStrayText(container: DomElement): void {
  const paragraphText = Array.from(container.getElementsByTagName("p")).reduce((sum, p) => sum + textLength(p), 0);
  if (paragraphText < MIN_EXTRACTED_CHARS * 3) return;
  const strays: DomNode[] = [];
  const visit = (node: DomNode, insideProse: boolean) => {
    // Iterative over siblings, recursive over depth (bounded by the depth cap).
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (isText(child)) {
        if (!insideProse && child.data.trim() !== "") strays.push(child);
      } else if (isElement(child)) visit(child, insideProse || PROSE.has(tagOf(child)));
    }
  };
  visit(container, false);
  for (const node of strays) node.remove();
}

function prune(container: DomElement): void {
  pruneNamedBoilerplate(container);
  for (let pass = 0; pass < 2; pass++) {
    const dense: DomElement[] = [];
    walkElements(container, (element) => {
      const tag = tagOf(element);
      if (
        (tag === "div" || tag === "ul" || tag === "ol" || tag === "p" || tag === "dl") &&
        isLinkDense(element, (element.textContent ?? "").replace(/\s+/g, " ").trim())
      ) {
        dense.push(element);
        return false;
      }
      return true;
    });
    for (const element of dense) element.remove();
  }
  pruneArticle(container);
  dropStrayText(container);
}

/** Prose blocks of the whole page, for pages whose container matched no convention. */
function gatherProse(body: DomElement): DomElement {
  const holder = body.ownerDocument.createElement("div");
  const blocks: DomElement[] = [];
  walkElements(body, (element) => {
    const tag = tagOf(element);
    if (tag === "p" || tag === "blockquote" || tag === "pre" || tag === "table" || /^h[1-6]$/.test(tag)) {
      blocks.push(element);
      return false;
    }
    return true;
  });
  for (const block of blocks) holder.appendChild(block);
  prune(holder);
  return holder;
}

/**
 * The article by container conventions, pruned, from `body` (which this
 * mutates; pass a copy). Null when nothing of substance is found.
 */
export function extractByContainerRules(body: DomElement): DomElement | null {
  for (const container of containersByTier(body)) {
    if (!container?.parentNode) continue;
    prune(container);
    if (textLength(container) >= MIN_EXTRACTED_CHARS / 2 && container.querySelector("p, li, pre, blockquote, td, h2, h3")) return container;
  }
  const gathered = gatherProse(body);
  return textLength(gathered) > 0 ? gathered : null;
}
