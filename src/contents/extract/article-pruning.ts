/**
 * Removes boilerplate that survives inside the chosen article container:
 * captions and photo credits, dates, author boxes, "related" and newsletter
 * blocks, ratings, short link-dense paragraphs and lists ("Read also: ..."),
 * and the headings such removals leave orphaned. These sit between the
 * article's own paragraphs, so container-level selection cannot drop them.
 *
 * Inside the article, names are weaker evidence than on the page at large
 * ("teaser" is as often the lede as a promo), so this vocabulary is narrower
 * than the page-level one, and nothing that holds a large share of the
 * article's text is removed by name.
 */
import { type DomElement, tagOf, walkElements } from "./dom.ts";
import { HEADINGS, isHeading, LIST_ITEMS } from "./element-kinds.ts";
import { isCredit, isDateline, isFinePrint, isReadAlso } from "./boilerplate-phrases.ts";

/** Tags that hold metadata or widgets, not prose. */
const NON_PROSE_TAGS = new Set([
  "figcaption",
  "time",
  "form",
  "label",
  "fieldset",
  "address",
  "button",
  "nav",
  "aside",
  "footer",
  "small",
  "sub",
]);

/** Class/id fragments that name in-article boilerplate. */
const IN_ARTICLE_BOILERPLATE =
  /caption|credit|copyright|newsletter|subscri|related|disclaimer|affiliate|rating|author|byline|\bbio\b|abh_|sabox|avatar|vcard|postmetadata|post-?meta|entry-?meta|entry-footer|article-footer|read-?time|reading-?time|kommentar|comment|breadcrumb|interest|payant|login|signup|share|sharing|social|embed|donat|steady|print|download|advert|\bads?\b|anzeige|werbung|sponsor|cta\b|promo|toc\b|table-of-contents|inhaltsverzeichnis/;

/** Names that overrule the above: the element is the article's own text. */
const ARTICLE_NAMED = /article-?body|articlebody|entry-content|post-content|post-body|story-body|main-content|content-body/;

/** A removal by name may not take more than this share of the article's text. */
const MAX_SHARE_BY_NAME = 0.3;

const collapsed = (element: DomElement) => (element.textContent ?? "").replace(/\s+/g, " ").trim();

function linkTextLength(element: DomElement): { links: number; linkChars: number; shortLinks: number } {
  let links = 0;
  let linkChars = 0;
  let shortLinks = 0;
  for (const anchor of Array.from(element.getElementsByTagName("a"))) {
    const text = collapsed(anchor);
    if (!text) continue;
    links++;
    linkChars += text.length;
    if (text.length < 10) shortLinks++;
  }
  return { links, linkChars, shortLinks };
}

/**
 * trafilatura's link-density test: a short block whose text is mostly link
 * text is navigation, not prose. Blocks at the end of the article get a
 * higher length limit, since that is where "read more" blocks gather.
 */
export function isLinkDense(element: DomElement, text: string): boolean {
  const tag = tagOf(element);
  const last = element.nextElementSibling === null;
  const limit = tag === "p" ? (last ? 60 : 30) : last ? 300 : 100;
  if (text.length >= limit) return false;
  const { links, linkChars, shortLinks } = linkTextLength(element);
  if (links === 0) return false;
  return linkChars > 0.8 * text.length || (links > 1 && shortLinks / links > 0.8);
}

function namedBoilerplate(element: DomElement): boolean {
  const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`.toLowerCase();
  if (names.trim() === "") return false;
  return IN_ARTICLE_BOILERPLATE.test(names) && !ARTICLE_NAMED.test(names);
}

/** Blocks whose whole text is judged by its words (boilerplate-phrases.ts). */
const PHRASE_TAGS = new Set(["p", ...HEADINGS, ...LIST_ITEMS, "div", "span", "strong", "b", "em", "i", "blockquote", "section"]);
const LIST_TAGS = new Set(["ul", "ol", "div", "section", "p"]);
const DATELINE_TAGS = new Set(["p", "div", "span", "strong", "b", "em", "i", "h2", "h3", "h4", "h5", "h6", "section", "header"]);

function linkShare(element: DomElement): number {
  const length = collapsed(element).length;
  return length === 0 ? 0 : linkTextLength(element).linkChars / length;
}
const LINK_DENSITY_TAGS = new Set(["p", "ul", "ol", "dl", "div", "section", "li", "table"]);

/** Prunes `root` in place. */
export function pruneArticle(root: DomElement): void {
  const total = Math.max(1, collapsed(root).length);
  const removals: DomElement[] = [];
  walkElements(root, (element) => {
    const tag = tagOf(element);
    if (NON_PROSE_TAGS.has(tag)) {
      // <small>/<sub> inside prose are formatting; only standalone ones are fine print.
      if ((tag === "small" || tag === "sub") && element.parentElement && !isStandalone(element)) return true;
      removals.push(element);
      return false;
    }
    const text = collapsed(element);
    if (text === "" && !element.querySelector("img, picture, video, iframe")) return true;
    if (namedBoilerplate(element) && text.length / total <= MAX_SHARE_BY_NAME) {
      removals.push(element);
      return false;
    }
    if (LINK_DENSITY_TAGS.has(tag) && isLinkDense(element, text)) {
      removals.push(element);
      return false;
    }
    if (
      text.length <= 300 &&
      PHRASE_TAGS.has(tag) &&
      (isReadAlso(text, element.querySelector("a") !== null) || isCredit(text) || isFinePrint(text))
    ) {
      removals.push(element);
      // A "Read more" heading announces the link list after it.
      const next = element.nextElementSibling;
      if (isHeading(tag) && next && LIST_TAGS.has(tagOf(next)) && linkShare(next) > 0.5) removals.push(next);
      return false;
    }
    // Datelines are metadata (publishedAt has the date); inside lists and tables dates are data.
    if (text.length <= 80 && DATELINE_TAGS.has(tag) && isDateline(text)) {
      removals.push(element);
      return false;
    }
    return true;
  });
  for (const element of removals) removeWithOrphanedHeading(element);
  dropTrailingHeadings(root);
}

/** A <small> that is the whole of its paragraph, rather than a word inside one. */
function isStandalone(element: DomElement): boolean {
  const parent = element.parentElement!;
  return collapsed(parent) === collapsed(element);
}

/** A heading directly above removed boilerplate introduced it ("Related coverage"), so it goes too. */
function removeWithOrphanedHeading(element: DomElement): void {
  const previous = element.previousElementSibling;
  element.remove();
  if (previous && isHeading(tagOf(previous)) && isOrphaned(previous)) previous.remove();
}

function isOrphaned(heading: DomElement): boolean {
  const next = heading.nextElementSibling;
  return next === null || isHeading(tagOf(next));
}

/** Headings with nothing after them introduce something that was not kept. */
function dropTrailingHeadings(root: DomElement): void {
  for (let guard = 0; guard < 20; guard++) {
    const heading = lastTextHeading(root);
    if (!heading) return;
    heading.remove();
  }
}

/** The heading that holds the article's last visible text, if the text ends in one. */
function lastTextHeading(root: DomElement): DomElement | null {
  let node: DomElement = root;
  for (;;) {
    if (node !== root && isHeading(tagOf(node))) return node;
    let child = lastElementChild(node);
    while (child && collapsed(child) === "") child = child.previousElementSibling;
    if (!child) return null;
    // Text after the last element child (a bare text node) means the article ends in prose.
    for (let after = child.nextSibling; after; after = after.nextSibling) if ((after.textContent ?? "").trim() !== "") return null;
    node = child;
  }
}

function lastElementChild(element: DomElement): DomElement | null {
  const children = element.children;
  return children.length > 0 ? children[children.length - 1]! : null;
}
