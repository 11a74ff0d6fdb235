/**
 * PDFs through pdf.js (via unpdf): the text of each page, line by line, and
 * the document's own metadata. pdf.js detaches the buffer it is given, so it
 * gets a copy and the caller's body stays usable.
 */
import { getDocumentProxy, getMeta } from "unpdf";
import { ServiceError } from "../../errors.ts";
import { normaliseDate } from "./dates.ts";
import { normaliseLanguage } from "./metadata.ts";
import { linksInText } from "./links.ts";
import { escapeHtml, textToMarkdown } from "./plain.ts";
import type { ExtractedPage } from "./html-page.ts";

/** Pages past this are not read: a research source rarely needs more, and each page costs pdf.js time. */
export const MAX_PDF_PAGES = 300;

/** Word processors' placeholder titles say nothing about the document. */
const PLACEHOLDER_TITLE = /^(?:untitled|document\d*|microsoft word - .*|.*\.(?:docx?|pdf|indd|tex|odt|pptx?))$/i;

/** "D:20200102030405+01'00'" -> ISO. */
export function pdfDate(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const m = value.match(/^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(Z|[+-]\d{2}'?\d{2}'?)?/);
  if (!m) return normaliseDate(value);
  const zone = m[7] && m[7] !== "Z" ? `${m[7].slice(0, 3)}:${m[7].slice(3).replace(/'/g, "").padEnd(2, "0")}` : "Z";
  return normaliseDate(`${m[1]}-${m[2] ?? "01"}-${m[3] ?? "01"}T${m[4] ?? "00"}:${m[5] ?? "00"}:${m[6] ?? "00"}${zone}`);
}

const field = (info: Record<string, unknown>, key: string): string | null => {
  const value = info[key];
  return typeof value === "string" && value.trim() ? value.replace(/\s+/g, " ").trim() : null;
};

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

export async function extractPdf(body: Uint8Array): Promise<ExtractedPage> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(body));
  } catch (error) {
    // The PDF library's message describes its internals, not the page: the caller gets our code and words, the log its own.
    throw new ServiceError("pdf_unreadable", "the PDF could not be read", { cause: error });
  }
  try {
    const pages: string[] = [];
    for (let number = 1; number <= Math.min(pdf.numPages, MAX_PDF_PAGES); number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items as TextItem[]) {
        text += item.str ?? "";
        if (item.hasEOL) text += "\n";
      }
      pages.push(
        text
          .replace(/[ \t]+/g, " ")
          .replace(/ *\n */g, "\n")
          .replace(/\n{3,}/g, "\n\n")
          .trim(),
      );
      page.cleanup();
    }
    const { info: rawInfo, metadata } = await getMeta(pdf).catch(() => ({ info: {}, metadata: null }));
    const info = (rawInfo ?? {}) as Record<string, unknown>;
    const xmp = (key: string): string | null => {
      try {
        const value = (metadata as { get?: (k: string) => unknown } | null)?.get?.(key);
        return typeof value === "string" && value.trim() ? value.trim() : null;
      } catch {
        return null;
      }
    };
    const title = field(info, "Title") ?? xmp("dc:title");
    const text = pages.filter(Boolean).join("\n\n");
    return {
      title: title && !PLACEHOLDER_TITLE.test(title) ? title : null,
      byline: field(info, "Author") ?? xmp("dc:creator"),
      siteName: null,
      publishedAt: pdfDate(info.CreationDate) ?? normaliseDate(xmp("xmp:createdate")),
      language: normaliseLanguage(field(info, "Language") ?? xmp("dc:language")),
      text,
      markdown: textToMarkdown(text),
      html: pages
        .filter(Boolean)
        .map(
          (page) =>
            `<section>${page
              .split(/\n{2,}/)
              .map((block) => `<p>${block.split("\n").map(escapeHtml).join("<br>")}</p>`)
              .join("")}</section>`,
        )
        .join("\n"),
      links: linksInText(text),
    };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
