/**
 * A quoted sentence that opens with a pronoun ("It was completed in 1889")
 * says nothing on its own about what "it" is. The answer keeps the quote
 * verbatim and names the pronoun's entity beside it in square brackets, the
 * way an editor marks an insertion: "It [Eiffel Tower] was completed in
 * 1889." The entity is the name the sentence before it (in the same passage)
 * gives: the question's subject when that sentence names it, else its first
 * name, a person's for "he" and "she". "They" and "their" are left alone:
 * they mostly stand for a group the sentence before describes, not names.
 */
import { words } from "../../../terms.ts";
import type { EvidenceSentence, SentenceIndex } from "../evidence.ts";
import { nameSpans } from "../values.ts";

const OPENING = /^(It|Its|He|His|She|Her)\b/u;
const PERSONAL = new Set(["He", "His", "She", "Her"]);

/** The sentence as the answer shows it: the pronoun's entity inserted after it, or the sentence unchanged. */
export function resolveOpeningPronoun(sentence: EvidenceSentence, index: SentenceIndex, phrases: string[][]): string {
  const entity = pronounEntity(sentence, index, phrases);
  if (!entity) return sentence.text;
  const at = OPENING.exec(sentence.text)![0].length;
  return `${sentence.text.slice(0, at)} [${entity}]${sentence.text.slice(at)}`;
}

/** The entity a sentence's opening pronoun stands for, or null (no pronoun, no sentence before, no name in it). */
export function pronounEntity(sentence: EvidenceSentence, index: SentenceIndex, phrases: string[][]): string | null {
  const opening = OPENING.exec(sentence.text);
  const before = opening ? index.before(sentence) : null;
  if (!opening || !before) return null;
  // A person has a first and a last name; a thing may be named by one word ("Acme").
  const personal = PERSONAL.has(opening[1]!);
  // "Ada Morrow of Eastport" is a person from a place: the person is the name before "of".
  const names = nameSpans(before.text, personal ? 2 : 1).map((s) => (personal ? s.text.replace(/ (?:of|from) .*$/u, "") : s.text));
  const subject = names.find((n) => phrases.some((p) => p.every((w) => words(n).includes(w))));
  return subject ?? names[0] ?? null;
}

/** The sentence quoted inside a shown one: the shown text less any bracketed insertion. */
export function quotedText(shown: string): string {
  return shown.replace(/ \[[^\]\d][^\]]*\]/gu, "");
}
