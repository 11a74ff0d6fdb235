/**
 * The article facts a page states in JSON-LD (schema.org): headline, author,
 * publisher, date, language. Malformed blocks are skipped, not fatal; the
 * walk is bounded, since the JSON comes from the page.
 */
import type { DomDocument } from "./dom.ts";

export interface JsonLdFacts {
  title: string | null;
  byline: string | null;
  siteName: string | null;
  datePublished: string | null;
  language: string | null;
}

/**
 * schema.org types whose headline and author describe the page's main text.
 * Not WebPage: its name is usually the <title>, site suffix included.
 */
const ARTICLE_TYPES =
  /^(?:Article|AdvertiserContentArticle|NewsArticle|AnalysisNewsArticle|AskPublicNewsArticle|BackgroundNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|Report|SatiricalArticle|ScholarlyArticle|MedicalScholarlyArticle|SocialMediaPosting|BlogPosting|LiveBlogPosting|DiscussionForumPosting|TechArticle|APIReference|Recipe|Review|HowTo|QAPage|Question)$/;

const MAX_NODES = 2_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const asString = (value: Json | undefined): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

function typesOf(node: { [key: string]: Json }): string[] {
  const type = node["@type"];
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

/** Author names: a string, an object with `name`, or a list of either. */
function names(value: Json | undefined): string | null {
  if (typeof value === "string") return value.trim() || null;
  const list = Array.isArray(value) ? value : value && typeof value === "object" ? [value] : [];
  const found = list
    .map((item) =>
      typeof item === "string" ? item.trim() : item && typeof item === "object" && !Array.isArray(item) ? asString(item.name) : null,
    )
    .filter((name): name is string => !!name && !/^https?:\/\//.test(name));
  return found.length > 0 ? found.join(", ") : null;
}

/** Every object in the JSON, depth-first, including @graph members, up to MAX_NODES. */
function objects(root: Json): { [key: string]: Json }[] {
  const out: { [key: string]: Json }[] = [];
  const stack: Json[] = [root];
  let seen = 0;
  while (stack.length > 0 && seen++ < MAX_NODES) {
    const value = stack.pop()!;
    if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]!);
    else if (value && typeof value === "object") {
      out.push(value);
      if (value["@graph"]) stack.push(value["@graph"]);
    }
  }
  return out;
}

/** Word overlap, to tell which of two candidate titles the page's <title> agrees with. */
function similarity(a: string, b: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const x = words(a);
  const y = words(b);
  if (x.size === 0 || y.size === 0) return 0;
  let common = 0;
  for (const word of x) if (y.has(word)) common++;
  return common / Math.max(x.size, y.size);
}

/**
 * `headline` is the article title, except on sites (Wikipedia) that put a
 * description there and the title in `name`; the one closer to <title> wins.
 */
function pickTitle(node: { [key: string]: Json }, documentTitle: string): string | null {
  const headline = asString(node.headline);
  const name = asString(node.name);
  if (headline && name && headline !== name && similarity(name, documentTitle) > similarity(headline, documentTitle)) return name;
  return headline ?? name;
}

export function readJsonLd(document: DomDocument): JsonLdFacts {
  const facts: JsonLdFacts = { title: null, byline: null, siteName: null, datePublished: null, language: null };
  let article: { [key: string]: Json } | null = null;
  let website: { [key: string]: Json } | null = null;
  for (const script of Array.from(document.querySelectorAll('script[type="application/ld+json"]'))) {
    let parsed: Json;
    try {
      // CDATA wrappers and trailing semicolons are common; strip them before parsing.
      parsed = JSON.parse(
        (script.textContent ?? "")
          .replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, "")
          .trim()
          .replace(/;\s*$/, ""),
      ) as Json;
    } catch {
      continue;
    }
    for (const node of objects(parsed)) {
      const types = typesOf(node);
      if (!article && types.some((t) => ARTICLE_TYPES.test(t))) article = node;
      if (types.includes("WebSite") && !website) website = node;
    }
  }
  if (article) {
    facts.title = pickTitle(article, document.title ?? "");
    facts.byline = names(article.author) ?? names(article.creator);
    const publisher = article.publisher;
    if (publisher && typeof publisher === "object" && !Array.isArray(publisher)) facts.siteName = asString(publisher.name);
    facts.datePublished = asString(article.datePublished) ?? asString(article.dateCreated);
    facts.language = asString(article.inLanguage);
  }
  if (!facts.siteName && website) facts.siteName = asString(website.name);
  return facts;
}
