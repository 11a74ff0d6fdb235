/**
 * The lede (standfirst, teaser, intro) of a news article usually sits in the
 * article header next to the headline, outside the container that holds the
 * body paragraphs, so both extractors tend to leave it behind. It is found
 * before extraction and put back in front of the content when missing.
 */
import { type DomDocument, type DomElement, tagOf, walkElements } from "./dom.ts";

const LEDE_NAMES =
  /(?:^|[\s_-])(?:lead|lede|leadtext|intro|introduction|teaser|teasertext|standfirst|subtitle|subheadline|sub-headline|summary|excerpt|dek|deck|abstract|chapeau|description|kurztext|vorspann)(?:$|[\s_-])/i;
const LEDE_TAGS = new Set(["p", "div", "h2", "h3", "span", "section"]);
/** How many elements after the headline the lede may be. */
const LOOKAHEAD = 40;
const MIN_CHARS = 40;
const MAX_CHARS = 1_000;

const collapsed = (element: DomElement) => (element.textContent ?? "").replace(/\s+/g, " ").trim();

/** The headline: the <h1> that matches the page title, else the first one. */
function headline(document: DomDocument, title: string | null): DomElement | null {
  const headings = Array.from(document.body.getElementsByTagName("h1"));
  if (title) {
    const wanted = title.toLowerCase();
    const match = headings.find((h) => {
      const text = collapsed(h).toLowerCase();
      return text.length > 0 && (wanted.includes(text) || text.includes(wanted));
    });
    if (match) return match;
  }
  return headings[0] ?? null;
}

function linkShare(element: DomElement, length: number): number {
  let linked = 0;
  for (const anchor of Array.from(element.getElementsByTagName("a"))) linked += collapsed(anchor).length;
  return length === 0 ? 0 : linked / length;
}

/** The lede's text, or null when the page has none that is recognisable. */
export function findLede(document: DomDocument, title: string | null): string | null {
  const h1 = headline(document, title);
  if (!h1) return null;
  let seen = -1;
  let found: string | null = null;
  walkElements(document.body, (element) => {
    if (found !== null || seen >= LOOKAHEAD) return false;
    if (element === h1) {
      seen = 0;
      return false;
    }
    if (seen < 0) return true;
    seen++;
    if (!LEDE_TAGS.has(tagOf(element))) return true;
    const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""} ${element.getAttribute("itemprop") ?? ""}`;
    if (!LEDE_NAMES.test(names)) return true;
    const text = collapsed(element);
    if (text.length < MIN_CHARS || text.length > MAX_CHARS || linkShare(element, text.length) > 0.5) return true;
    found = text;
    return false;
  });
  return found;
}

/** Puts the lede in front of the content unless the content already has it. */
export function restoreLede(root: DomElement, lede: string | null): void {
  if (!lede) return;
  const content = collapsed(root);
  if (content.includes(lede.slice(0, 80))) return;
  const paragraph = root.ownerDocument.createElement("p");
  paragraph.appendChild(root.ownerDocument.createTextNode(lede));
  root.insertBefore(paragraph, root.firstChild);
}
