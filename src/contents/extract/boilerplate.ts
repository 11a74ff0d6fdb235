/**
 * Removes what is never main content before the main content is looked for:
 * elements that render nothing readable (scripts, forms controls, media),
 * hidden elements, navigation/aside/footer, and blocks whose class, id or
 * role name an unmistakable kind of boilerplate (comments, cookie banners,
 * share bars, breadcrumbs, "related" lists, newsletter boxes).
 *
 * Two vocabularies: the page-level one here is deliberately short, because a
 * name on a page wrapper can lie ("has-sidebar", "content-sidebar-wrap",
 * "elementor-widget" around every paragraph); measured on the eval set, every
 * broader word removed more article text than boilerplate. The block-level
 * one (judgeByName) is broader and is used inside a candidate container,
 * where a guard reverts it when it would remove nearly everything.
 *
 * Names are matched per token (class/id split on spaces, dashes, underscores
 * and camelCase humps) so that "nav" does not match "canvas" and "ad" does
 * not match "head"; a few distinctive stems also match inside tokens
 * ("relatedposts", "sharedaddy").
 */
import { type DomElement, tagOf, walkElements } from "./dom.ts";
import { EMBEDDED } from "./element-kinds.ts";

/** Elements with no readable text of their own, or only widgets. */
const NEVER_CONTENT = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "canvas",
  ...EMBEDDED,
  "video",
  "audio",
  "source",
  "track",
  "map",
  "area",
  "button",
  "input",
  "select",
  "option",
  "optgroup",
  "textarea",
  "datalist",
  "dialog",
  "menu",
  "menuitem",
  "link",
  "meta",
  "base",
  "param",
  "progress",
  "meter",
  "output",
]);

/** Elements that are boilerplate by definition, unless they turn out to hold the article (guarded). */
const STRUCTURAL_BOILERPLATE = new Set(["nav", "aside", "footer"]);

/** Page level: whole tokens and stems that name boilerplate whatever they wrap. */
const PAGE_TOKENS = new Set([
  "nav",
  "menu",
  "related",
  "teaser",
  "teasers",
  "caption",
  "respond",
  "aside",
  "share",
  "social",
  "breadcrumb",
  "breadcrumbs",
  "newsletter",
]);
const PAGE_STEMS = /comment|disqus|cookie|consent|gdpr|footer|navigation|navbar|outbrain|taboola/;

/** Block level: the broader vocabulary used inside a candidate container. */
const BLOCK_STEMS =
  /comment|disqus|related|share|sharing|social|sociable|addthis|shariff|newsletter|subscri|cookie|consent|gdpr|breadcrumb|sidebar|widget|outbrain|taboola|zergnet|sponsor|advert|banner|promo|popup|modal|overlay|lightbox|paywall|pagination|pager|navigation|navbar|footer|masthead|signup|login|byline|author|postmeta|entry-meta|post-meta|article-meta|tagcloud|taglist|tag-list|categories|recommend|trending|mostpopular|most-popular|readmore|read-more|skiplink|skip-link|screen-reader|sr-only|visually-hidden|print-only|toolbar|rating/;
const BLOCK_TOKENS = new Set([
  "nav",
  "menu",
  "menus",
  "ad",
  "ads",
  "adv",
  "advert",
  "meta",
  "tags",
  "date",
  "dates",
  "print",
  "email",
  "mail",
  "share",
  "follow",
  "subscribe",
  "reply",
  "replies",
  "respond",
  "toc",
  "jump",
  "rss",
  "feed",
  "hint",
  "notice",
  "alert",
  "caption",
  "credits",
  "copyright",
  "legal",
  "disclaimer",
  "bar",
  "topbar",
  "links",
  "related",
  "teaser",
  "teasers",
  "more",
  "also",
  "prev",
  "previous",
  "infobox",
  "aside",
  "sidebar",
  "extra",
  "extras",
  "utility",
  "utilities",
  "tools",
  "actions",
  "social",
  "community",
  "foot",
  "icons",
  "icon",
  "badge",
  "badges",
  "stats",
  "counter",
  "views",
  "likes",
  "vote",
  "votes",
  "poll",
]);

/** Tokens that say "this is the article": they veto a boilerplate match on the same element. */
const CONTENT_TOKENS = new Set(["article", "content", "entry", "post", "body", "text", "story", "main", "blog", "hentry", "articlebody"]);

const ROLE_BOILERPLATE = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "menu",
  "menubar",
  "dialog",
  "alertdialog",
  "toolbar",
  "tablist",
]);

/**
 * Splits a class/id value into lowercase tokens: "postMeta share_bar" ->
 * post, meta, share, bar. camelCase humps split only when asked: at page
 * level they split widget names into false hits ("CtxtMenu_Attached" on
 * every MathJax formula).
 */
export function nameTokens(value: string, splitCamelCase = true): string[] {
  return (splitCamelCase ? value.replace(/([a-z])([A-Z])/g, "$1 $2") : value)
    .toLowerCase()
    .split(/[\s_\-:./]+/)
    .filter(Boolean);
}

export interface BoilerplateVerdict {
  /** The rule that matched ("token:nav", "stem:comment", "role:navigation"), or null. */
  rule: string | null;
  /** Also carries an article-ish name ("entry-content share"), which vetoes the match. */
  contentNamed: boolean;
}

function judge(element: DomElement, tokens: Set<string>, stems: RegExp, splitCamelCase: boolean): BoilerplateVerdict {
  const role = element.getAttribute("role")?.toLowerCase() ?? "";
  if (ROLE_BOILERPLATE.has(role)) return { rule: `role:${role}`, contentNamed: false };
  const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`;
  if (names.trim() === "") return { rule: null, contentNamed: false };
  const split = nameTokens(names, splitCamelCase);
  const contentNamed = split.some((t) => CONTENT_TOKENS.has(t));
  const token = split.find((t) => tokens.has(t));
  if (token) return { rule: `token:${token}`, contentNamed };
  const stem = names.toLowerCase().match(stems)?.[0];
  return { rule: stem ? `stem:${stem}` : null, contentNamed };
}

/** What an element's class, id and role say about it, in the block-level vocabulary. */
export function judgeByName(element: DomElement): BoilerplateVerdict {
  return judge(element, BLOCK_TOKENS, BLOCK_STEMS, true);
}

export function isHidden(element: DomElement): boolean {
  if (element.hasAttribute("hidden")) return true;
  if (element.getAttribute("aria-hidden") === "true") return true;
  const style = element.getAttribute("style");
  return style !== null && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

const textLength = (element: DomElement) => (element.textContent ?? "").replace(/\s+/g, " ").length;

/** Elements that hold the article for sure; boilerplate rules never remove them or their ancestors. */
const ARTICLE_TAGS = new Set(["article", "main"]);
const ARTICLE_SELECTOR = "article, main, [itemprop=articleBody], [role=main]";

/**
 * <noscript> usually holds a tracking pixel or "enable JavaScript"; but
 * pages that render their article with script put the article itself in
 * <noscript> for crawlers, and without script that is the page we have.
 */
const SUBSTANTIAL_NOSCRIPT = 200;

function unwrap(element: DomElement): void {
  const parent = element.parentNode;
  if (!parent) return;
  while (element.firstChild) parent.insertBefore(element.firstChild, element);
  element.remove();
}

/**
 * Removes never-content, hidden and boilerplate elements under `root`, in
 * place. A boilerplate name does not remove an element that holds most of
 * the page's text or contains the article element.
 */
export function removeBoilerplate(root: DomElement): void {
  const total = Math.max(1, textLength(root));
  const protectedAncestors = new Set<DomElement>();
  for (const article of Array.from(root.querySelectorAll(ARTICLE_SELECTOR))) {
    for (let node = article.parentElement; node && node !== root; node = node.parentElement) protectedAncestors.add(node);
  }
  const removals: DomElement[] = [];
  const unwraps: DomElement[] = [];
  const remove = (element: DomElement) => {
    removals.push(element);
    return false;
  };
  walkElements(root, (element) => {
    const tag = tagOf(element);
    if (tag === "noscript" && textLength(element) >= SUBSTANTIAL_NOSCRIPT && element.querySelector("p")) {
      unwraps.push(element);
      return true;
    }
    if (NEVER_CONTENT.has(tag)) return remove(element);
    if (isHidden(element)) return remove(element);
    if (protectedAncestors.has(element) || ARTICLE_TAGS.has(tag) || element.getAttribute("itemprop") === "articleBody") return true;
    const verdict = STRUCTURAL_BOILERPLATE.has(tag) ? { rule: tag, contentNamed: false } : judge(element, PAGE_TOKENS, PAGE_STEMS, false);
    if (!verdict.rule || verdict.contentNamed) return true;
    // Large blocks are only removed on strong evidence.
    if (textLength(element) / total > 0.5) return true;
    return remove(element);
  });
  for (const element of removals) element.remove();
  for (const element of unwraps) unwrap(element);
}
