/**
 * HTML pages: parse, read metadata, resolve addresses, clean, find the main
 * content, then render it three ways from the same tree.
 */
import { parseDocument } from "./dom.ts";
import { readMetadata, type PageMetadata } from "./metadata.ts";
import { baseUrlOf, resolveUrls } from "./urls.ts";
import { removeBoilerplate } from "./boilerplate.ts";
import { findMainContent } from "./main-content.ts";
import { normaliseTables } from "./tables.ts";
import { findLede, restoreLede } from "./lede.ts";
import { renderText } from "./render-text.ts";
import { renderMarkdown } from "./render-markdown.ts";
import { renderHtml } from "./render-html.ts";
import { collectLinks } from "./links.ts";

export interface ExtractedPage extends PageMetadata {
  html: string;
  markdown: string;
  text: string;
  links: string[];
}

export function extractHtmlPage(source: string, url: string): ExtractedPage {
  const document = parseDocument(source);
  const metadata = readMetadata(document);
  resolveUrls(document.body, baseUrlOf(document, url));
  removeBoilerplate(document.body);
  const lede = findLede(document, metadata.title);
  const content = findMainContent(document, metadata.title);
  restoreLede(content.root, lede);
  normaliseTables(content.root);
  return {
    ...metadata,
    byline: metadata.byline ?? content.byline,
    html: renderHtml(content.root),
    markdown: renderMarkdown(content.root),
    text: renderText(content.root),
    links: collectLinks(content.root),
  };
}
