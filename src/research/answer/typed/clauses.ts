/**
 * The part of the prompt that asks for a field. A prompt that asks for four
 * things in one breath ("which company hosts it, what publishing software
 * does it run on, …") says in each clause what the field's name only hints
 * at: `hosting_provider` is "which company hosts it", so a source's "hosted
 * by Joyent" is found by "hosts", a word the field's name does not hold.
 */
import { lemmaOf } from "../english.ts";
import { queryTerms, sameTerm } from "../evidence.ts";

// Clauses end at punctuation and at "and" between two asks ("… its CEO, and in what year …").
const CLAUSE_BREAK =
  /[,;:?!]+|\.\s+|\s+(?:and|or)\s+(?=(?:what|which|who|whom|whose|when|where|why|how|whether|is|are|was|were|did|does|do|has|have|can|will|if)\b)/iu;

const ASKING = /(?:^|\s)(?:what|which|who|whom|whose|when|where|why|how|whether)(?:\s|$)/iu;

/** Whether two words are forms of one stem: sameTerm, a shared lemma, or a shared stem of 4+ letters ("hosting" / "hosts"). */
export function relatedWord(a: string, b: string): boolean {
  if (sameTerm(a, b)) return true;
  if (a.length < 4 || b.length < 4) return false;
  let shared = 0;
  while (shared < Math.min(a.length, b.length) && a[shared] === b[shared]) shared++;
  if (shared >= 4 && shared >= Math.min(a.length, b.length) * 0.6) return true;
  return lemmaOf(a) === lemmaOf(b);
}

/**
 * The terms of the prompt's clause that best matches the field's words, less
 * the field's own terms and the prompt's subject: [] when no clause shares a
 * word with the field (a prompt that asks for one thing, or a field the
 * prompt never names).
 */
export function clauseTerms(prompt: string, field: { leaf: string[]; terms: string[] }, subject: string[]): string[] {
  const clauses = prompt
    .split(CLAUSE_BREAK)
    .map((c) => c.trim())
    .filter(Boolean);
  if (clauses.length < 2) return [];
  let best: { terms: string[]; score: number; asking: boolean } = { terms: [], score: 0, asking: false };
  for (const clause of clauses) {
    const terms = queryTerms(clause);
    // The leaf's words say most ("company" in sharon_company); the parents' words and synonyms less.
    const score =
      field.leaf.filter((w) => terms.some((t) => relatedWord(w, t))).length * 2 +
      field.terms.filter((w) => !field.leaf.includes(w) && terms.some((t) => relatedWord(w, t))).length;
    // On a tie the clause that asks ("by what year does Microsoft…") beats the one that names the topic ("Microsoft's carbon pledge").
    const asking = ASKING.test(clause);
    if (score > best.score || (score === best.score && score > 0 && asking && !best.asking)) best = { terms, score, asking };
  }
  return best.terms.filter((t) => !subject.includes(t) && !field.terms.some((f) => sameTerm(f, t)));
}
