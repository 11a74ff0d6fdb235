/**
 * Page metadata, read before any cleaning: title, byline, site name,
 * publication date and language, from (in order of trust) JSON-LD, meta
 * tags, then the markup itself (<title>, <h1>, rel=author, <time>).
 */
import type { DomDocument, DomElement } from "./dom.ts";
import { readJsonLd } from "./json-ld.ts";
import { normaliseDate } from "./dates.ts";

export interface PageMetadata {
  title: string | null;
  byline: string | null;
  siteName: string | null;
  publishedAt: string | null;
  language: string | null;
}

/** Trimmed, with line breaks and tabs folded to spaces; spacing the author chose (NBSP, ideographic space) is kept. */
const clean = (value: string | null | undefined): string | null => {
  const text = value?.replace(/[ \t]*[\r\n\t\f\v]+[ \t]*/g, " ").trim();
  return text ? text : null;
};

/** Meta tags by lowercased name, property or http-equiv; the first occurrence wins. */
function metaValues(document: DomDocument): Map<string, string> {
  const values = new Map<string, string>();
  for (const meta of Array.from(document.getElementsByTagName("meta"))) {
    const content = clean(meta.getAttribute("content"));
    if (!content) continue;
    for (const attribute of ["property", "name", "itemprop", "http-equiv"]) {
      // "property" may hold several space-separated names ("og:title twitter:title").
      for (const key of (meta.getAttribute(attribute) ?? "").toLowerCase().split(/\s+/)) {
        if (key && !values.has(key)) values.set(key, content);
      }
    }
  }
  return values;
}

const first = (values: Map<string, string>, keys: string[]): string | null => {
  for (const key of keys) {
    const value = values.get(key);
    if (value) return value;
  }
  return null;
};

/** Author fields often hold a profile URL or a social handle instead of a name. */
const NOT_A_NAME = /^(?:https?:\/\/|www\.|@)/i;

const firstName = (values: Map<string, string>, keys: string[]): string | null => {
  for (const key of keys) {
    const value = values.get(key);
    if (value && !NOT_A_NAME.test(value)) return value;
  }
  return null;
};

/** A date or time glued to a byline in the markup ("By Jane Doe March 3, 2020 10:00 AM"). */
const TRAILING_DATE =
  /\s+(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b).*$/i;

/** Trims what bylines are laid out with ("By Jane Doe —", "| Jane Doe", a trailing date); drops implausible ones. */
function cleanByline(value: string | null): string | null {
  const text = value
    ?.replace(/\s+/g, " ")
    .replace(TRAILING_DATE, "")
    .replace(/^(?:by|von|par|por|di|door|av|af)\s*:?\s+(?=\S)/i, "")
    .replace(/^[\s|·•—–-]+|[\s|·•—–,-]+$/g, "")
    .trim();
  return text && text.length <= 200 && !NOT_A_NAME.test(text) ? text : null;
}

const SEPARATOR = / [|\-–—\\/>»·•:]{1,2} /g;
const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A <title> usually carries the site name ("Story – Site", "Site | Section |
 * Story"). Keep the part that is the story: drop the last segment, or the
 * first when what remains is too short to be a headline; keep the whole
 * when trimming would leave a stub.
 */
export function cleanDocumentTitle(raw: string, siteName: string | null, headings: string[]): string {
  const title = raw.replace(/[ \t\r\n\f\v]+/g, " ").trim();
  const separators = Array.from(title.matchAll(SEPARATOR)).filter((m) => !m[0].includes(":") || m[0].trim() !== ":");
  if (separators.length === 0) {
    // "Site: Story" or "Story: subtitle"? A heading with the whole string means it is all title.
    const colon = title.indexOf(": ");
    if (colon < 0 || headings.includes(title)) return title;
    const after = title.slice(title.lastIndexOf(":") + 1).trim();
    if (wordCount(after) >= 3) return wordCount(title.slice(0, colon)) > 5 ? title : after;
    const afterFirst = title.slice(colon + 1).trim();
    return wordCount(afterFirst) >= 3 ? afterFirst : title;
  }
  const lastSeparator = separators[separators.length - 1]!;
  const withoutLast = title.slice(0, lastSeparator.index).trim();
  const lastPart = title.slice(lastSeparator.index! + lastSeparator[0].length).trim();
  const firstSeparator = separators[0]!;
  const withoutFirst = title.slice(firstSeparator.index! + firstSeparator[0].length).trim();
  const firstPart = title.slice(0, firstSeparator.index).trim();
  const site = siteName?.toLowerCase();
  if (site && lastPart.toLowerCase() === site) return withoutLast;
  if (site && firstPart.toLowerCase() === site) return withoutFirst;
  // A heading that repeats one side of the separator says which side is the headline.
  const headingSet = new Set(headings.map((h) => h.toLowerCase()));
  if (headingSet.has(withoutLast.toLowerCase())) return withoutLast;
  if (headingSet.has(withoutFirst.toLowerCase())) return withoutFirst;
  const candidate = wordCount(withoutLast) >= 3 ? withoutLast : withoutFirst;
  // Trimming to four words or fewer usually cut a headline, not a site name.
  const hierarchical = /[\\/>»]/.test(title.replace(/https?:\/\//g, ""));
  if (wordCount(candidate) <= 4 && (!hierarchical || wordCount(candidate) !== wordCount(title.replace(/[|\-–—\\/>»·•]+/g, "")) - 1))
    return title;
  return candidate;
}

function textOf(element: DomElement | null | undefined): string | null {
  return clean(element?.textContent);
}

/** A byline found in the markup: rel=author, itemprop=author, or a short .byline/.author element. */
function markupByline(document: DomDocument): string | null {
  const explicit = document.querySelector("[rel=author], [itemprop~=author] [itemprop=name], [itemprop~=author]");
  const text = textOf(explicit);
  if (text && text.length < 100) return text;
  for (const element of Array.from(
    document.querySelectorAll(".byline, .author, .by-author, .article-author, .post-author, .entry-author"),
  )) {
    const value = textOf(element);
    if (value && value.length < 100) return value;
  }
  return null;
}

/** A publication date in the markup: an explicitly marked <time>, else the first dated <time> in the article. */
function markupDate(document: DomDocument): string | null {
  const marked = document.querySelector("time[pubdate], [itemprop=datePublished], time.published, time.entry-date, .published time");
  const candidates = [marked, document.querySelector("article time[datetime]"), document.querySelector("time[datetime]")];
  for (const element of candidates) {
    const value = element?.getAttribute("datetime") ?? element?.getAttribute("content") ?? element?.textContent;
    const date = normaliseDate(value);
    if (date) return date;
  }
  return null;
}

/** "en_US" -> "en-US"; the first of a list; null for nonsense. */
export function normaliseLanguage(value: string | null | undefined): string | null {
  const tag = value?.split(/[,;]/)[0]?.trim().replace(/_/g, "-");
  return tag && /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/i.test(tag) ? tag : null;
}

export function readMetadata(document: DomDocument): PageMetadata {
  const meta = metaValues(document);
  const ld = readJsonLd(document);
  const siteName = clean(ld.siteName) ?? first(meta, ["og:site_name", "application-name", "al:android:app_name"]);
  const headings = Array.from(document.querySelectorAll("h1, h2")).map((h) => textOf(h) ?? "");
  const metaTitle =
    clean(ld.title) ??
    first(meta, [
      "dc:title",
      "dcterm:title",
      "dc.title",
      "dcterms.title",
      "og:title",
      "title",
      "twitter:title",
      "parsely-title",
      "sailthru.title",
    ]);
  const documentTitle = clean(document.title);
  let title = metaTitle ?? (documentTitle ? cleanDocumentTitle(documentTitle, siteName, headings) : null);
  if (!title) title = textOf(document.querySelector("h1"));

  const byline = cleanByline(
    clean(ld.byline) ??
      firstName(meta, [
        "dc:creator",
        "dcterm:creator",
        "dc.creator",
        "dcterms.creator",
        "author",
        "article:author",
        "parsely-author",
        "sailthru.author",
        "byl",
      ]) ??
      markupByline(document),
  );
  const publishedAt =
    normaliseDate(ld.datePublished) ??
    normaliseDate(
      first(meta, [
        "article:published_time",
        "og:published_time",
        "parsely-pub-date",
        "sailthru.date",
        "datepublished",
        "date",
        "dc.date",
        "dc.date.issued",
        "dcterms.date",
        "dcterms.created",
        "pubdate",
        "publishdate",
        "publish-date",
        "citation_publication_date",
        "citation_date",
        "article.published",
        "published_time",
      ]),
    ) ??
    markupDate(document);
  const language =
    normaliseLanguage(document.documentElement.getAttribute("lang")) ??
    normaliseLanguage(document.documentElement.getAttribute("xml:lang")) ??
    normaliseLanguage(first(meta, ["content-language", "language", "dc.language", "dcterms.language", "og:locale"])) ??
    normaliseLanguage(ld.language);
  return { title, byline, siteName, publishedAt, language };
}
