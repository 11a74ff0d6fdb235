/**
 * Removes what is never main content before the main content is looked for:
 * elements that render nothing readable (scripts, forms, media), hidden
 * elements, and blocks whose class, id or role name a kind of boilerplate
 * (navigation, comments, share bars, cookie banners, related links...).
 *
 * Readability scores what is left; cleaning first spares it from weighing
 * boilerplate it would otherwise keep (share bars and "related" lists that
 * sit inside the article container are its most common leak).
 *
 * Names are matched per token (class/id split on spaces, dashes, underscores
 * and camelCase humps) so that "nav" does not match "canvas" and "ad" does
 * not match "head"; a few distinctive stems also match inside tokens
 * ("relatedposts", "sharedaddy").
 */
import { type DomElement, tagOf, walkElements } from "./dom.ts";

/** Elements with no readable text of their own, or only widgets. */
const NEVER_CONTENT = new Set([
  "script", "style", "noscript", "template", "svg", "canvas", "iframe", "frame", "frameset", "object", "embed",
  "applet", "video", "audio", "source", "track", "map", "area", "button", "input", "select", "option", "optgroup",
  "textarea", "datalist", "dialog", "menu", "menuitem", "link", "meta", "base", "param", "progress", "meter", "output",
]);

/** Elements that are boilerplate by definition, unless they turn out to hold the article (guarded). */
const STRUCTURAL_BOILERPLATE = new Set(["nav", "aside", "footer"]);

/** Stems that name boilerplate wherever they appear in a class or id token. */
const BOILERPLATE_STEMS =
  /comment|disqus|related|share|sharing|social|sociable|addthis|shariff|newsletter|subscri|cookie|consent|gdpr|breadcrumb|sidebar|widget|outbrain|taboola|zergnet|sponsor|advert|banner|promo|popup|modal|overlay|lightbox|paywall|pagination|pager|navigation|navbar|footer|masthead|signup|login|byline|author|postmeta|entry-meta|post-meta|article-meta|tagcloud|taglist|tag-list|categories|recommend|trending|mostpopular|most-popular|readmore|read-more|skiplink|skip-link|screen-reader|sr-only|visually-hidden|print-only|toolbar|rating/;

/** Whole tokens that name boilerplate (too short or too common to match inside other words). */
const BOILERPLATE_TOKENS = new Set([
  "nav", "menu", "menus", "ad", "ads", "adv", "advert", "meta", "tags", "date", "dates",
  "print", "email", "mail", "share", "follow", "subscribe", "reply", "replies", "respond", "toc", "jump", "rss",
  "feed", "hint", "notice", "alert", "caption", "credits", "copyright", "legal", "disclaimer", "bar", "topbar", "links",
  "related", "teaser", "teasers", "more", "also", "prev", "previous", "infobox", "aside",
  "sidebar", "extra", "extras", "utility", "utilities", "tools", "actions", "social", "community", "foot",
  "icons", "icon", "badge", "badges", "stats", "counter", "views", "likes", "vote", "votes", "poll",
]);

/** Tokens that say "this is the article": they veto a weak boilerplate match on the same element. */
const CONTENT_TOKENS = new Set(["article", "content", "entry", "post", "body", "text", "story", "main", "blog", "hentry", "articlebody"]);

const ROLE_BOILERPLATE = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog", "alertdialog", "toolbar", "tablist"]);

/** Splits a class/id value into lowercase tokens: "postMeta share_bar" -> post, meta, share, bar. */
export function nameTokens(value: string): string[] {
  return value
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[\s_\-:./]+/)
    .filter(Boolean);
}

export interface BoilerplateVerdict {
  /** The rule that matched ("token:nav", "stem:comment", "role:navigation"), or null. */
  rule: string | null;
  /** Also carries an article-ish name ("entry-content share"): weaker evidence. */
  contentNamed: boolean;
}

/** What an element's class, id and role say about it. */
export function judgeByName(element: DomElement): BoilerplateVerdict {
  const role = element.getAttribute("role")?.toLowerCase() ?? "";
  if (ROLE_BOILERPLATE.has(role)) return { rule: `role:${role}`, contentNamed: false };
  const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`;
  if (names.trim() === "") return { rule: null, contentNamed: false };
  const tokens = nameTokens(names);
  const contentNamed = tokens.some((t) => CONTENT_TOKENS.has(t));
  const token = tokens.find((t) => BOILERPLATE_TOKENS.has(t));
  if (token) return { rule: `token:${token}`, contentNamed };
  const stem = names.toLowerCase().match(BOILERPLATE_STEMS)?.[0];
  return { rule: stem ? `stem:${stem}` : null, contentNamed };
}

export function isHidden(element: DomElement): boolean {
  if (element.hasAttribute("hidden")) return true;
  if (element.getAttribute("aria-hidden") === "true") return true;
  const style = element.getAttribute("style");
  return style !== null && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/** Text length without building strings for every element twice: linkedom's textContent is one linear walk. */
const textLength = (element: DomElement) => (element.textContent ?? "").replace(/\s+/g, " ").length;

/** Elements that hold the article for sure; boilerplate rules never remove their ancestors. */
const ARTICLE_TAGS = new Set(["article", "main"]);
const ARTICLE_SELECTOR = "article, main, [itemprop=articleBody], [role=main]";

export interface CleaningOptions {
  /** Remove elements whose names say boilerplate (the only optional part). */
  byName: boolean;
}

/**
 * Removes never-content, hidden and boilerplate elements under `root`, in
 * place. A boilerplate name does not remove an element that holds most of
 * the page's text or contains the article element: wrappers named
 * "content-with-sidebar" exist.
 */
export function removeBoilerplate(root: DomElement, options: CleaningOptions = { byName: true }): void {
  const total = Math.max(1, textLength(root));
  const protectedAncestors = new Set<DomElement>();
  for (const article of Array.from(root.querySelectorAll(ARTICLE_SELECTOR))) {
    for (let node = article.parentElement; node && node !== root; node = node.parentElement) protectedAncestors.add(node);
  }
  const removals: DomElement[] = [];
  const remove = (element: DomElement) => {
    removals.push(element);
    return false;
  };
  walkElements(root, (element) => {
    const tag = tagOf(element);
    if (NEVER_CONTENT.has(tag)) return remove(element);
    if (tag === "body" || tag === "html") return true;
    if (isHidden(element)) return remove(element);
    if (protectedAncestors.has(element) || ARTICLE_TAGS.has(tag) || element.getAttribute("itemprop") === "articleBody") return true;
    const structural = STRUCTURAL_BOILERPLATE.has(tag);
    if (!structural && !options.byName) return true;
    const verdict = structural ? { rule: tag, contentNamed: false } : judgeByName(element);
    if (!verdict.rule || verdict.contentNamed) return true;
    // Large blocks are only removed on strong evidence.
    if (textLength(element) / total > 0.5) return true;
    return remove(element);
  });
  for (const element of removals) element.remove();
}
