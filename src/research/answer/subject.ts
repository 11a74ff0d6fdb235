/**
 * The question's subject: the names it asks about ("Eiffel Tower", "Acme
 * Corp"), and whether a text names them, a namesake of them, or someone
 * else. Both answerers weigh sources and sentences by it.
 */
import { isStopword, words } from "../../terms.ts";
import { sameTerm } from "./evidence.ts";
import { abbreviated, nameSpans, type Span } from "./values.ts";

/**
 * The question's named words: capitalised words after its first word, names
 * of two or more words anywhere ("Eiffel Tower overview"), and words in
 * quotes. If the sources mention none of them, they are about something
 * else, however many ordinary words they share with the question.
 */
export function subjectWords(prompt: string): string[] {
  const out = new Set<string>(nameSpans(prompt, 2).flatMap((span) => words(span.text).filter((w) => !isStopword(w))));
  const tokens = [...prompt.matchAll(/[\p{L}\p{N}]+/gu)];
  tokens.forEach((m, i) => {
    const before = prompt.slice(0, m.index).trimEnd();
    const opensSentence = i === 0 || /[.!?:]$/.test(before);
    // An acronym ("US", "IT") names something even where its letters spell a stopword.
    const acronym = /^\p{Lu}{2,5}$/u.test(m[0]);
    if (!opensSentence && /^\p{Lu}/u.test(m[0]) && (acronym || !isStopword(m[0].toLowerCase()))) out.add(m[0].toLowerCase());
  });
  for (const q of prompt.matchAll(/["“„«]([^"”“»]{2,60})["”“»]/gu)) for (const w of words(q[1]!)) if (!isStopword(w)) out.add(w);
  return [...out];
}

/** Names in a sentence that are not the question's own subject (an answer to "who", not its topic). */
export function answerNames(sentence: string, subject: string[]): Span[] {
  return nameSpans(sentence).filter((span) => {
    const own = words(span.text);
    return !own.every((w) => subject.includes(w)) && !abbreviated(own, subject);
  });
}

/** The question's named things as lowercase word lists ("Eiffel Tower" → ["eiffel", "tower"]). */
export function subjectPhrases(text: string): string[][] {
  return nameSpans(text, 1)
    .map((span) => words(span.text).filter((w) => !isStopword(w)))
    .filter((p) => p.length > 0);
}

/**
 * Whether a text names a namesake of the question's subject rather than the
 * subject itself: "Tokyo Tower" for "Eiffel Tower" (same last word, another
 * first) or "Acme Markets" for "Acme Corp" (same first word, another last),
 * and never the subject itself. Such sentences share the question's words
 * but answer another question. "Gustave Eiffel" is no namesake of "Eiffel
 * Tower": the words do not line up.
 */
export function namesAnotherSubject(text: string, phrases: string[][]): boolean {
  const multi = phrases.filter((p) => p.length >= 2);
  if (multi.length === 0) return false;
  let namesOther = false;
  for (const span of nameSpans(text, 1)) {
    const spanWords = words(span.text).filter((w) => !isStopword(w));
    for (const phrase of multi) {
      if (spanWords.length >= phrase.length && phrase.every((w) => spanWords.some((s) => sameTerm(s, w)))) return false;
      if (spanWords.length < 2) continue;
      const sameFirst = sameTerm(spanWords[0]!, phrase[0]!);
      const sameLast = sameTerm(spanWords[spanWords.length - 1]!, phrase[phrase.length - 1]!);
      if (sameFirst !== sameLast) namesOther = true;
    }
  }
  return namesOther;
}

/** Whether a sentence's terms hold every word of one of the subject's names. */
export function namesSubject(terms: string[], phrases: string[][]): boolean {
  return phrases.some((p) => p.every((w) => terms.some((t) => sameTerm(t, w))));
}
