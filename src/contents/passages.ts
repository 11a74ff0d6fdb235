/**
 * Cuts a page's markdown into passages for the local index and the ranker:
 * paragraphs joined up to about PASSAGE_WORDS words, never across a heading,
 * each carrying the heading it sits under. Passage text is plain: markdown
 * syntax (links, emphasis, table pipes, heading marks) is stripped, so the
 * passage quoted to a caller reads as prose.
 */
export interface Passage {
  ordinal: number;
  heading: string | null;
  content: string;
}

const PASSAGE_WORDS = 120;
const MAX_PASSAGE_WORDS = 220;

export function markdownToPlain(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n([\s\S]*?)```/g, "$1")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
    .replace(/^#{1,6}\s+/gm, "")
    .replace(/^\s*[-*+]\s+/gm, "")
    .replace(/^\s*>\s?/gm, "")
    .replace(/^[ \t]*\|?[ \t:-]+\|[ \t|:-]*(\n|$)/gm, "")
    .replace(/^[ \t]*\|[ \t]*|[ \t]*\|[ \t]*$/gm, "")
    .replace(/[ \t]*\|[ \t]*/g, " ")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[^\w*])[*_]([^*_\n]+)[*_](?=[^\w*]|$)/g, "$1$2")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/[ \t]+/g, " ")
    .trim();
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Splits a long paragraph at sentence ends so no passage is much over the maximum. */
function splitLong(paragraph: string): string[] {
  if (words(paragraph) <= MAX_PASSAGE_WORDS) return [paragraph];
  const sentences = paragraph.match(/[^.!?。！？]+[.!?。！？]*\s*/g) ?? [paragraph];
  const out: string[] = [];
  let current = "";
  for (const sentence of sentences) {
    if (current && words(current) + words(sentence) > PASSAGE_WORDS) {
      out.push(current.trim());
      current = "";
    }
    current += sentence;
    // A single run-on "sentence" longer than the maximum is cut by words.
    while (words(current) > MAX_PASSAGE_WORDS) {
      const tokens = current.trim().split(/\s+/);
      out.push(tokens.slice(0, PASSAGE_WORDS).join(" "));
      current = tokens.slice(PASSAGE_WORDS).join(" ");
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

export function splitPassages(markdown: string): Passage[] {
  const passages: Passage[] = [];
  let heading: string | null = null;
  let buffer: string[] = [];
  // The buffer's words, counted as pieces join it: recounting the joined buffer for every piece was quadratic.
  let buffered = 0;
  const flush = () => {
    const content = buffer.join("\n\n").trim();
    if (content) passages.push({ ordinal: passages.length, heading, content });
    buffer = [];
    buffered = 0;
  };
  for (const block of markdown.split(/\n\s*\n/)) {
    const headingMatch = /^#{1,6}\s+(.+)$/.exec(block.trim());
    if (headingMatch && !block.trim().includes("\n")) {
      flush();
      heading = markdownToPlain(headingMatch[1]!).slice(0, 300) || null;
      continue;
    }
    for (const piece of splitLong(markdownToPlain(block))) {
      if (!piece) continue;
      const count = words(piece);
      if (buffer.length && buffered + count > PASSAGE_WORDS) flush();
      buffer.push(piece);
      buffered += count;
    }
  }
  flush();
  return passages;
}
