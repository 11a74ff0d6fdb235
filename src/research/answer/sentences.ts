/**
 * Sentences of a passage for the extractive answerer. Every sentence is an
 * exact substring of its passage (only trimmed), because the answer quotes it
 * under a citation and anyone may check the quote against the source. Markup
 * noise is therefore never edited out of a sentence: it is treated as a
 * boundary, so "History [edit] The tower..." yields "History" and "The
 * tower...", and a footnote "[3]" can never be mistaken for a citation.
 */

// Words that end in a period without ending the sentence (lowercase, no final dot).
const ABBREVIATIONS = new Set(
  (
    "mr mrs ms dr prof rev hon gen col lt sgt capt st mt vs approx ca cf al dept est jr sr fig figs " +
    "bzw ggf evtl inkl sog vgl bspw usw mio mrd str hr fr " +
    "mme mlle env av apr " +
    "sra srta dña ud uds aprox pág núm"
  ).split(" "),
);
// Abbreviations that only stay inside a sentence when a number follows ("No. 5", "Jan. 12", "p. 40").
const BEFORE_NUMBER = new Set("no nr nos vol p pp art sec ch chap jan feb mar apr jun jul aug sep sept oct nov dec".split(" "));
const MONTH_WORDS = new Set(
  "januar februar märz april mai juni juli august september oktober november dezember jänner janvier février mars avril juin juillet août septembre octobre novembre décembre".split(
    " ",
  ),
);

// Edit links, footnotes, table pipes and "read more" links: boundaries, never sentence text.
const NOISE =
  /\|+|\[(?:\d{1,3}|[a-z]|edit|edit source|bearbeiten|quelltext bearbeiten|modifier|modifier le code|editar|citation needed|note \d+)\]|\b(?:read more|continue reading|show more|weiterlesen|mehr lesen|lire la suite|en savoir plus|leer más|seguir leyendo)\b(?:\s*(?:»|›|→|\.\.\.|…))?/giu;

// Sentence-final punctuation with any closing quotes or brackets after it.
const TERMINATOR = /(?:[.!?…]+|[。！？]+|[।؟۔])["'”’»)\]」』]*/gu;
const WIDE_TERMINATOR = /^[。！？।؟۔]/u;
const WORD_CHAR = /[\p{L}\p{N}.'’-]/u;
// Leading list markers that markdown-to-plain conversion may have left.
const BULLET = /^(?:[-*•·▪◦‣–—]\s+|\d{1,2}[.)]\s+(?=\p{L}))/u;

/** The sentences of a passage, in order, each an exact (trimmed) substring of it. */
export function splitSentences(passage: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const match of passage.matchAll(NOISE)) {
    splitSegment(passage, last, match.index, out);
    last = match.index + match[0].length;
  }
  splitSegment(passage, last, passage.length, out);
  return out;
}

function splitSegment(text: string, from: number, to: number, out: string[]): void {
  // Lines are boundaries (paragraphs, list items, table rows), except a hard-wrapped
  // line: a long one without final punctuation whose next line starts in lowercase.
  let start = from;
  let lineStart = from;
  for (let i = from; i <= to; i++) {
    if (i < to && text[i] !== "\n") continue;
    if (i < to) {
      const line = text.slice(lineStart, i).trim();
      const next = text.slice(i + 1, Math.min(to, i + 3)).trimStart();
      const wrapped = line.split(/\s+/).length >= 8 && !/[.!?:;。！？]$/u.test(line) && /^\p{Ll}/u.test(next);
      lineStart = i + 1;
      if (wrapped) continue;
    }
    splitLine(text, start, i, out);
    start = i + 1;
  }
}

function splitLine(text: string, from: number, to: number, out: string[]): void {
  const line = text.slice(from, to);
  let start = 0;
  for (const match of line.matchAll(TERMINATOR)) {
    const end = match.index + match[0].length;
    if (endsSentence(line, match.index, match[0], end)) {
      push(line.slice(start, end), out);
      start = end;
    }
  }
  push(line.slice(start), out);
}

function endsSentence(line: string, at: number, mark: string, end: number): boolean {
  if (WIDE_TERMINATOR.test(mark)) return true;
  const rest = line.slice(end);
  if (rest && !/^\s/.test(rest)) return false; // "3.5", "e.g.,", "example.com"
  const nextWord = /^\s*(\S+)/.exec(rest)?.[1] ?? "";
  if (!nextWord) return true;
  if (!mark.startsWith(".")) return !/^\p{Ll}/u.test(nextWord);
  // A lowercase continuation means the period belonged to an abbreviation ("approx. two").
  if (/^\p{Ll}/u.test(nextWord)) return false;
  // The word before the period, found by walking back (a `$`-anchored regex would rescan the line each time).
  let from = at;
  while (from > 0 && WORD_CHAR.test(line[from - 1]!)) from--;
  const before = line.slice(from, at);
  const token = before.toLowerCase();
  if (ABBREVIATIONS.has(token)) return false;
  if (BEFORE_NUMBER.has(token) && /^\d/.test(nextWord)) return false;
  if (/^\p{Lu}$/u.test(before)) return false; // an initial: "J. K. Rowling"
  if (/^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u.test(before)) return false; // "e.g", "U.S", "z.B", "i.e"
  if (/^\d{1,2}$/.test(before) && MONTH_WORDS.has(nextWord.toLowerCase().replace(/[^\p{L}]/gu, ""))) return false; // "31. März"
  return true;
}

/**
 * A "sentence" longer than this is a run-on (a flattened table, a list
 * without punctuation): it is cut at a comma or space into pieces, which keeps
 * every piece verbatim and keeps the work per sentence bounded. Real
 * sentences are far shorter (this is about 80 words).
 */
const MAX_SENTENCE_CHARS = 500;

function push(raw: string, out: string[]): void {
  let rest = raw.trim();
  while (rest.length > MAX_SENTENCE_CHARS) {
    const window = rest.slice(0, MAX_SENTENCE_CHARS);
    const comma = window.lastIndexOf(", ");
    const cut = comma > MAX_SENTENCE_CHARS / 2 ? comma + 1 : window.lastIndexOf(" ") > 0 ? window.lastIndexOf(" ") : MAX_SENTENCE_CHARS;
    pushOne(rest.slice(0, cut), out);
    rest = rest.slice(cut).trim();
  }
  pushOne(rest, out);
}

function pushOne(raw: string, out: string[]): void {
  let sentence = raw.trim();
  const bullet = BULLET.exec(sentence);
  if (bullet) sentence = sentence.slice(bullet[0].length);
  // Separators left at the edges by the noise boundaries ("Read more »", "— ").
  sentence = sentence.replace(/^[\s»›→:;,–—-]+|[\s»›→–—-]+$/gu, "");
  if (/[\p{L}\p{N}]/u.test(sentence)) out.push(sentence);
}
