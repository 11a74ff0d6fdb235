/**
 * English as a language model reads it: wink-nlp with its lite English web
 * model (both ship inside their npm packages, so this works offline and
 * needs no key). Chosen over compromise after measuring both on twenty news
 * and encyclopedia pages: about ten times the throughput (528 against 54
 * characters per millisecond) for a sixth of the memory (19 MB against
 * 122 MB), with the same sentence boundaries on abbreviations.
 *
 * The model is built on first use, not at import: a service that is never
 * asked a question without an LLM never pays for it.
 */
import winkNLP, { type WinkMethods } from "wink-nlp";
import model from "wink-eng-lite-web-model";

let nlp: WinkMethods | null = null;

function reader(): WinkMethods {
  nlp ??= winkNLP(model, ["sbd", "pos", "ner", "negation"]);
  return nlp;
}

const LEMMAS = new Map<string, string>();
/** Words seen across every answer; the cache is dropped whole when full rather than tracked per entry. */
const MAX_LEMMAS = 100_000;
const PLAIN_WORD = /^[a-z]{3,24}$/;

/**
 * The dictionary form of a lowercase English word ("wrote" → "write",
 * "children" → "child"), or the word itself when it is not a plain English
 * word. Context-free: the question's word and the source's are each read alone.
 */
export function lemmaOf(word: string): string {
  if (!PLAIN_WORD.test(word)) return word;
  const known = LEMMAS.get(word);
  if (known !== undefined) return known;
  const wink = reader();
  const token = wink.readDoc(word).tokens().itemAt(0);
  const lemma = token ? String(token.out(wink.its.lemma as never)).toLowerCase() : word;
  if (LEMMAS.size >= MAX_LEMMAS) LEMMAS.clear();
  LEMMAS.set(word, lemma);
  return lemma;
}

export interface TaggedToken {
  text: string;
  start: number;
  end: number;
  /** Universal part-of-speech tag: PROPN, NOUN, VERB, NUM… */
  pos: string;
}

const TAGS = new Map<string, TaggedToken[]>();
const MAX_TAGGED = 5_000;

/** The sentence's tokens with their parts of speech and their offsets in it. */
export function tagged(text: string): TaggedToken[] {
  const known = TAGS.get(text);
  if (known) return known;
  const wink = reader();
  const doc = wink.readDoc(text);
  const words = doc.tokens().out() as string[];
  const tags = doc.tokens().out(wink.its.pos as never) as string[];
  const out: TaggedToken[] = [];
  let cursor = 0;
  words.forEach((word, i) => {
    // The tokenizer keeps the text's characters, so each token is found at or after the last one's end.
    const start = text.indexOf(word, cursor);
    if (start < 0) return;
    cursor = start + word.length;
    out.push({ text: word, start, end: cursor, pos: tags[i] ?? "X" });
  });
  if (TAGS.size >= MAX_TAGGED) TAGS.clear();
  TAGS.set(text, out);
  return out;
}
