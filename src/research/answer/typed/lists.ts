/**
 * List items for array fields: the lines of a list whose heading or
 * introduction names the field ("Products and prices", "Our products:"),
 * and enumerations in sentences that name it ("Its products include rocket
 * skates, anvils and giant magnets, which..."). Items from every source are
 * merged, the same item in another inflection only once ("Anvil" / "anvils").
 */
import { isStopword, words } from "../../../terms.ts";
import { sameTerm, termsOf, type EvidenceSentence, type SentenceIndex } from "../evidence.ts";
import { hasTerm, termOffsets, type Evidence, type FieldQuery } from "./fields.ts";

export interface Item {
  text: string;
  /** Where the item was found: its list line or enumerating sentence. */
  sentence: EvidenceSentence;
}

const MAX_ITEMS = 30;
const MAX_ITEM_WORDS = 6;
// Words after which a sentence lists things: "include", "such as", "sells", ":".
const LIST_CUE =
  /(?:^|[\s(])(?:include|includes|included|including|such as|like|are|were|sells|sell|sold|makes|offers|produces|consists? of|comprises?|namely|umfassen|umfasst|sind|wie|comme|notamment|sont|incluent|incluyen|como|son)(?![\p{L}])|:/giu;
// Where an enumeration's last item ends: a relative clause, a parenthesis, the sentence's end.
const LIST_END =
  /,?\s+(?:which|that|who|whose|where|while|because|although|though|since|but|die|der|das|qui|que|où|cuyo)\s|[;.!?()[\]]|\s[–—]\s/iu;
const SPLIT = /\s*,\s*(?:and\s+|or\s+|und\s+|et\s+|y\s+)?|\s+(?:and|or|as well as|und|oder|sowie|et|ou|y|o)\s+/iu;
const TAIL = /\s+(?:through|via|in|on|at|for|from|to|with|by|during|across|under|worldwide|online)(?:\s.*)?$/iu;
const DETERMINER =
  /^(?:the|a|an|its|their|our|his|her|also|der|die|das|den|dem|ein|eine|le|la|les|l['’]|des|du|un|une|el|los|las|unos|unas)\s+/iu;

/**
 * The field's list items, best sources first, deduplicated across sources.
 * Without an index (inside one item's own text) only enumerations count.
 */
export function extractItems(field: FieldQuery, evidence: Evidence[], index: SentenceIndex | null): Item[] {
  const items: Item[] = [];
  const add = (text: string, sentence: EvidenceSentence) => {
    if (items.length < MAX_ITEMS && !items.some((i) => sameItem(i.text, text))) items.push({ text, sentence });
  };
  const best = evidence[0]?.score ?? 0;
  for (const ev of evidence) {
    if (ev.score < best * 0.3) break;
    for (const text of enumeration(ev.text, field)) add(text, ev.sentence);
  }
  if (index) for (const line of listLines(index, field)) add(line.text, line.sentence);
  return items;
}

/**
 * Items enumerated after the field's words and a list cue ("products include
 * A, B and C"), or before a copula and the field's words ("Uranus and
 * Neptune are ice giants"); none unless there are at least two.
 */
function enumeration(text: string, field: FieldQuery): string[] {
  for (const at of anchors(text, field)) {
    const after = itemsAfter(text, at);
    if (after.length >= 2) return after;
    const before = itemsBefore(text, at);
    if (before.length >= 2) return before;
  }
  return [];
}

/** Where the field is named: all of its own words in a row, or for a one-word field also a synonym ("sells" for products). */
function anchors(text: string, field: FieldQuery): number[] {
  const own = field.leaf.filter((w) => !isStopword(w) && w.length > 1);
  const phrase = mentionAt(text, own.join(" "));
  if (own.length > 1) return phrase >= 0 ? [phrase] : [];
  return termOffsets(text, field.terms);
}

function itemsAfter(text: string, at: number): string[] {
  const cue = [...text.matchAll(LIST_CUE)].find((m) => m.index + m[0].length > at);
  if (!cue) return [];
  let rest = text.slice(cue.index + cue[0].length);
  const end = LIST_END.exec(rest);
  if (end) rest = rest.slice(0, end.index);
  return split(rest);
}

const COPULA_BEFORE = /\s(?:are|were|sind|waren|sont|étaient|son|eran)\s+(?:\p{Ll}+\s+){0,2}$/u;
const CLAUSE_START =
  /^.*(?:[,;:]\s*(?:while|whereas|but|and|während|aber|tandis que|mais|mientras)?\s+|\s(?:while|whereas|but|während|aber|tandis que|mais|mientras)\s+)/isu;

function itemsBefore(text: string, at: number): string[] {
  const head = text.slice(0, at);
  const copula = COPULA_BEFORE.exec(head);
  if (!copula) return [];
  const clause = head.slice(0, copula.index);
  return split(clause.replace(CLAUSE_START, ""));
}

function split(run: string): string[] {
  const parts = run
    .split(SPLIT)
    .map(cleanItem)
    .filter((p): p is string => p !== null);
  return parts.length >= 2 ? parts : [];
}

function cleanItem(raw: string): string | null {
  let item = raw.trim().replace(DETERMINER, "").replace(DETERMINER, "");
  if (words(item).length > 2) item = item.replace(TAIL, "");
  item = item.replace(/[\s.,;:!?]+$/u, "").trim();
  const count = words(item).length;
  if (count === 0 || count > MAX_ITEM_WORDS || words(item).every((w) => isStopword(w))) return null;
  return item;
}

/** Runs of two or more short lines without final punctuation, in a passage or after an intro that names the field. */
function listLines(index: SentenceIndex, field: FieldQuery): Item[] {
  const out: Item[] = [];
  const sentences = index.sentences;
  for (let i = 0; i < sentences.length; ) {
    let j = i;
    while (j < sentences.length && isListLine(sentences[j]!) && sameParagraphRun(sentences[i]!, sentences[j]!, j - i)) j++;
    if (j - i >= 2) {
      const intro =
        i > 0 && sentences[i - 1]!.passage === sentences[i]!.passage && sentences[i - 1]!.sourceId === sentences[i]!.sourceId
          ? sentences[i - 1]!.text
          : "";
      const context = `${index.heading(sentences[i]!)} ${intro}`;
      if (hasTerm(context, field.terms)) {
        for (const s of sentences.slice(i, j)) {
          const head = cleanItem(s.text.split(/\s*(?::|\s[–—-]\s|\()/u)[0] ?? "");
          if (head) out.push({ text: head, sentence: s });
        }
      }
    }
    i = Math.max(j, i + 1);
  }
  return out;
}

function isListLine(s: EvidenceSentence): boolean {
  return s.terms.length <= 8 && !/[.!?。:]$/u.test(s.text);
}

function sameParagraphRun(first: EvidenceSentence, current: EvidenceSentence, offset: number): boolean {
  return current.sourceId === first.sourceId && current.passage === first.passage && current.position === first.position + offset;
}

/** Two names for one item: the same words up to inflection ("Giant magnet" / "giant magnets"). */
function sameItem(a: string, b: string): boolean {
  const x = words(a.replace(/\([^)]*\)/g, ""));
  const y = words(b.replace(/\([^)]*\)/g, ""));
  return x.length === y.length && x.every((w, i) => sameTerm(w, y[i]!));
}

type Token = { word: string; index: number };

function tokens(text: string): Token[] {
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ word: m[0].toLowerCase(), index: m.index }));
}

/** Where the item's words appear in a row in the text (or its tokens), from `from` on; -1 when they do not. */
function mentionAt(text: string | Token[], item: string, from = 0): number {
  const wanted = words(item.replace(/\([^)]*\)/g, ""));
  if (wanted.length === 0) return -1;
  const all = typeof text === "string" ? tokens(text) : text;
  for (let i = 0; i + wanted.length <= all.length; i++) {
    if (all[i]!.index >= from && wanted.every((w, k) => sameTerm(w, all[i + k]!.word))) return all[i]!.index;
  }
  return -1;
}

/**
 * The stretches of text about each item: every sentence that mentions it,
 * from the mention up to the next other item's mention, so that in "rocket
 * skates cost $49.99 and the anvil $20" each item keeps its own price.
 */
export function itemEvidence(items: Item[], index: SentenceIndex): Map<Item, Evidence[]> {
  const mentions = new Map<EvidenceSentence, { item: Item; at: number }[]>();
  const tokenCache = new Map<EvidenceSentence, Token[]>();
  for (const item of items) {
    const first = words(item.text.replace(/\([^)]*\)/g, ""))[0];
    for (const sentence of first ? index.sentencesWith(first) : []) {
      let own = tokenCache.get(sentence);
      if (!own) tokenCache.set(sentence, (own = tokens(sentence.text)));
      const at = mentionAt(own, item.text);
      if (at >= 0) mentions.set(sentence, [...(mentions.get(sentence) ?? []), { item, at }]);
    }
  }
  const out = new Map<Item, Evidence[]>(items.map((i) => [i, []]));
  for (const [sentence, found] of mentions) {
    for (const { item, at } of found) {
      const end = Math.min(sentence.text.length, ...found.filter((o) => o.at > at).map((o) => o.at));
      const text = sentence.text.slice(at, end);
      out.get(item)!.push({ sentence, text, score: sentence === item.sentence ? 1 : 0.8, terms: termsOf(text) });
    }
  }
  return out;
}
