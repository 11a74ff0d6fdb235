/**
 * Text values for typed extraction: the shortest verbatim span that answers
 * the field. The field's name says what to look for: a person for
 * "founder" or "ceo" (a capitalised name beside the role word, "founded by
 * X"), a place for "headquarters" or "city" (the places after "headquartered
 * in", split so "city" takes the first and "country" the last), a date for
 * "date" fields, the words after "<field> is" for anything else, and as a
 * last resort the clause of the best sentence that holds the field's words.
 */
import { words } from "../../terms.ts";
import { answerNames } from "./extractive-question.ts";
import { proximity, termOffsets, termSpans, type Evidence, type FieldQuery } from "./typed-fields.ts";
import type { Found } from "./typed-scalars.ts";
import { dateSpans, nameSpans, yearMentions } from "./typed-values.ts";

const PERSON =
  /^(?:founder|founders|cofounder|ceo|president|chairman|chair|author|creator|inventor|designer|architect|director|owner|leader|head|manager|engineer|composer|writer|painter|discoverer|chancellor|mayor|coach|captain|maintainer|person|executive|chief|gründer|architekt|autor|erfinder|präsident|fondateur|architecte|auteur|inventeur|président|fundador|arquitecto|autor)$/;
const PLACE =
  /^(?:headquarters|hq|location|city|country|place|based|address|capital|state|region|birthplace|origin|venue|located|town|province|nation|sitz|ville|pays|where)$/;
const DATE = /^(?:date|day|birthday|when|datum)$/;
const NAMED =
  /^(?:name|title|brand|model|company|organization|organisation|team|club|ticker|symbol|code|language|currency|product|publisher|label|platform)$/;

// "headquartered in", "based in", "located in", "hat seinen Sitz in", "basée à".
const PLACE_CUE =
  /(?:headquartered|headquarters (?:is |are )?(?:located )?|based|located|situated|hq (?:is )?|sitz|siège(?: social)?(?: est)?|basée?|située?|con sede)\s+(?:in|at|à|en)\s+/giu;
const PLACE_RUN =
  /\p{Lu}[\p{L}'’.-]*(?:\s+(?:\p{Lu}[\p{L}'’.-]*|of|de|del|am|an|sur|upon))*(?:,\s*\p{Lu}[\p{L}'’.-]*(?:\s+(?:\p{Lu}[\p{L}'’.-]*|of|de))*)*/u;

type StringKind = "place" | "person" | "date" | "text";

function stringKind(field: FieldQuery): StringKind {
  if (field.words.some((w) => PLACE.test(w))) return "place";
  if (field.words.some((w) => PERSON.test(w))) return "person";
  if (field.words.some((w) => DATE.test(w))) return "date";
  return "text";
}

/** Picks the field's text value from the evidence, or null when nothing says it. */
export function extractString(field: FieldQuery, evidence: Evidence[], subject: string[]): Found<string> | null {
  switch (stringKind(field)) {
    case "place":
      return place(field, evidence);
    case "person":
      return person(field, evidence, subject);
    case "date":
      return date(field, evidence);
    case "text":
      return (
        afterCopula(field, evidence) ??
        (field.leaf.some((w) => NAMED.test(w)) ? named(field, evidence, subject) : null) ??
        clause(field, evidence)
      );
  }
}

/**
 * A text field of a list item: in "Priya Nair – Chief financial officer" or
 * "Anvil: $20" what follows the item's name on its own line describes it.
 */
export function extractItemString(
  field: FieldQuery,
  item: { text: string; sentence: Evidence["sentence"] },
  evidence: Evidence[],
  subject: string[],
): Found<string> | null {
  if (stringKind(field) === "text") {
    const line = item.sentence.text;
    const rest = line.startsWith(item.text) ? /^\s*(?::|[–—-]|,)\s*(.+)$/u.exec(line.slice(item.text.length))?.[1] : undefined;
    if (rest && words(rest).length <= 12) return { value: rest.replace(/[.;]$/, ""), sentences: [item.sentence] };
  }
  return extractString(field, evidence, subject);
}

function best<T extends { score: number }>(candidates: T[]): T | undefined {
  return candidates.sort((a, b) => b.score - a.score)[0];
}

/** A capitalised name beside the role word, not the subject itself; "A and B" when two are named together. */
function person(field: FieldQuery, evidence: Evidence[], subject: string[]): Found<string> | null {
  const candidates = evidence.slice(0, 8).flatMap((ev) => {
    const fieldWords = termSpans(ev.text, field.terms);
    return answerNames(ev.text, subject).map((span) => {
      let end = span.end;
      const joined = /^\s+(?:and|und|et|y|&)\s+/u.exec(ev.text.slice(end));
      if (joined) {
        const next = nameSpans(ev.text.slice(end + joined[0].length))[0];
        if (next && next.index === 0) end = end + joined[0].length + next.end;
      }
      const after = /(?:^|\s)(?:by|von|par|por)\s+$/iu.test(ev.text.slice(0, span.index)) ? 1.5 : 1;
      return { text: ev.text.slice(span.index, end), score: ev.score * after * proximity(fieldWords, { index: span.index, end }), ev };
    });
  });
  const pick = best(candidates);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

/** The places after a location cue: "Springfield, Oregon, United States". */
function place(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const leaf = field.leaf;
  const candidates: { parts: string[]; text: string; score: number; ev: Evidence }[] = [];
  for (const ev of evidence.slice(0, 8)) {
    for (const cue of ev.text.matchAll(PLACE_CUE)) {
      const run = PLACE_RUN.exec(ev.text.slice(cue.index + cue[0].length));
      if (!run) continue;
      const parts = run[0]
        .split(/,\s*/)
        .map((p) => p.replace(/\.$/, ""))
        .filter(Boolean);
      candidates.push({ parts, text: run[0].replace(/\.$/, ""), score: ev.score * (1 + 0.1 * parts.length), ev });
    }
  }
  const wantsCountry = leaf.some((w) => /^(?:country|nation|pays|land)$/.test(w));
  const wantsCity = leaf.some((w) => /^(?:city|town|ville|stadt)$/.test(w));
  const wantsRegion = leaf.some((w) => /^(?:state|region|province)$/.test(w));
  // A lone place might be a city or a country: only a list says which is which.
  const usable = candidates.filter((c) => (wantsCountry || wantsRegion ? c.parts.length >= (wantsRegion ? 3 : 2) : true));
  const pick = best(usable);
  if (!pick) return null;
  const value = wantsCity ? pick.parts[0]! : wantsCountry ? pick.parts[pick.parts.length - 1]! : wantsRegion ? pick.parts[1]! : pick.text;
  return { value, sentences: [pick.ev.sentence] };
}

function date(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const candidates = evidence.slice(0, 8).flatMap((ev) => {
    const spans = dateSpans(ev.text);
    const found = spans.length ? spans.map((s) => ({ ...s, weight: 1 })) : yearMentions(ev.text).map((y) => ({ ...y, weight: 0.6 }));
    const fieldWords = termSpans(ev.text, field.terms);
    return found.map((s) => ({ text: s.text, score: ev.score * s.weight * proximity(fieldWords, s), ev }));
  });
  const pick = best(candidates);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

const COPULA_AFTER = /^(?:['’]s)?\s*(?:is|was|are|were|:|=|called|named|known as|ist|war|heißt|est|était|es|fue)?\s*/iu;

/** "The ticker is ACME", "under the ticker ACME", "Material: wrought iron": the words right after the field's word. */
function afterCopula(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const leafTerms = field.terms.filter((t) => field.leaf.some((l) => l === t));
  if (leafTerms.length === 0) return null;
  for (const ev of evidence.slice(0, 4)) {
    for (const at of termOffsets(ev.text, leafTerms)) {
      const wordEnd = at + (/^[\p{L}\p{N}]+/u.exec(ev.text.slice(at))?.[0].length ?? 0);
      const rest = ev.text.slice(wordEnd);
      const copula = COPULA_AFTER.exec(rest)!;
      const value = /^[^,;.()!?]+/u.exec(rest.slice(copula[0].length))?.[0].trim() ?? "";
      const count = words(value).length;
      // A name right after the word (ticker ACME) or a short phrase after a copula.
      const short = copula[0].trim() ? count >= 1 && count <= 6 : count >= 1 && count <= 3 && /^\p{Lu}/u.test(value);
      if (short && !/^(?:the|a|an|of|in|on|at|by|to|for|and|with|from|not)$/i.test(words(value)[0] ?? ""))
        return { value, sentences: [ev.sentence] };
    }
  }
  return null;
}

function named(field: FieldQuery, evidence: Evidence[], subject: string[]): Found<string> | null {
  const candidates = evidence.slice(0, 6).flatMap((ev) => {
    const fieldWords = termSpans(ev.text, field.terms);
    return nameSpans(ev.text, 1)
      .filter((s) => !words(s.text).every((w) => subject.includes(w)))
      .map((s) => ({ text: s.text, score: ev.score * proximity(fieldWords, s), ev }));
  });
  const pick = best(candidates);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

/** The clause of the best sentence holding the field's words, or the sentence when the clause is a fragment. */
function clause(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const ev = evidence[0];
  if (!ev) return null;
  const pieces = ev.text.split(/[;,]\s+|\s+[–—]\s+/u);
  const hits = (p: string) => termOffsets(p, field.terms).length;
  const piece = pieces.reduce((a, b) => (hits(b) > hits(a) ? b : a));
  const value = words(piece).length >= 4 ? piece.trim().replace(/[.;,]$/, "") : ev.text;
  return { value, sentences: [ev.sentence] };
}
