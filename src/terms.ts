/**
 * Words for matching and ranking: lowercase letter/digit runs in any script,
 * and the same without the words too common to tell passages apart.
 * Shared by the local index's queries and the research ranker.
 */

// Function words of the languages most pages are in; they say nothing about relevance.
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its me my no not of on or our she he so such than that the their them then there these they this those to was we were what when where which who whom why will with would you your " +
    "der die das und ist im in den dem des ein eine einen zu mit auf für von nicht sich auch als an es war wie " +
    "le la les et est un une des du de en pour dans que qui sur pas au aux ce il elle " +
    "el los las y es un una que en por para con del al lo se"
  ).split(" "),
);

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/** Distinct meaningful terms in order of appearance, at most `max`. */
export function contentTerms(text: string, max = 32): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (STOPWORDS.has(word) || out.includes(word)) continue;
    // Single Latin letters carry nothing; single CJK characters or digits do.
    if (word.length < 2 && !/\p{N}/u.test(word) && !/[^\p{Script=Latin}]/u.test(word)) continue;
    out.push(word);
    if (out.length >= max) break;
  }
  return out;
}
