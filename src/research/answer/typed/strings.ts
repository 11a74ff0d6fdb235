/**
 * Text values for typed extraction: the shortest verbatim span that answers
 * the field. The field's name says what to look for: a person for
 * "founder" or "ceo" (a capitalised name beside the role word, "founded by
 * X"), a place for "headquarters" or "city" (the places after "headquartered
 * in", split so "city" takes the first and "country" the last), a date for
 * "date" fields, the words after "<field> is" for anything else, and as a
 * last resort the clause of the best sentence that holds the field's words.
 */
import { words } from "../../../terms.ts";
import { countrySpans } from "../countries.ts";
import { EMAIL, entitySpans, organisationName, WEB_ADDRESS } from "../entities.ts";
import { knownNotPerson, lexiconKinds, placeKinds, soundsLikePerson, type NameKind } from "../gazetteer.ts";
import { termSpans } from "../evidence.ts";
import { answerNames } from "../subject.ts";
import { proximity, termOffsets, type Evidence, type FieldQuery } from "./fields.ts";
import { extractQuantityText, namesQuantity, type Found } from "./scalars.ts";
import { dateSpans, nameSpans, yearMentions } from "../values.ts";

const PERSON =
  /^(?:founder|founders|cofounder|ceo|president|chairman|chair|author|creator|inventor|designer|architect|director|owner|leader|head|manager|engineer|composer|writer|painter|discoverer|chancellor|mayor|coach|captain|maintainer|person|executive|chief|gründer|architekt|autor|erfinder|präsident|fondateur|architecte|auteur|inventeur|président|fundador|arquitecto|autor)$/;
const PLACE =
  /^(?:headquarters|hq|location|city|country|place|based|address|capital|state|region|birthplace|origin|venue|located|town|province|nation|sitz|ville|pays|where)$/;
const DATE =
  /^(?:date|day|birthday|when|datum|year|since|began|begin|beginning|started|start|starting|ended|end|ending|until|deadline|founded|launched|released|opened|closed)$/;
// Fields that ask for words about something rather than its name: these keep a clause of the best sentence.
const DESCRIPTIVE =
  /^(?:description|describe|summary|reason|reasons|why|cause|causes|purpose|explanation|status|note|notes|detail|details|meaning|definition|expansion|stands|abstract|overview|about|bio|biography|text|content|message|quote|statement|advice|tip|tips|answer|outcome|verdict|comment|review|how|what|impact|effect|effects|issue|problem|goal|plan|role|position|job|occupation|profession|type|kind|category|genre|style|method|approach|policy|rule|condition|symptoms|diagnosis|illness|disease|charge|charges|crime|award|prize|recommendation|conclusion|finding|findings|claim)$/;
const NAMED =
  /^(?:name|title|brand|model|company|organization|organisation|team|club|ticker|symbol|code|language|currency|product|publisher|label|platform)$/;

// "headquartered in", "based in", "located in", "hat seinen Sitz in", "basée à".
const PLACE_CUE =
  /(?:headquartered|headquarters (?:is |are )?(?:located )?|based|located|situated|hq (?:is )?|sitz|siège(?: social)?(?: est)?|basée?|située?|con sede)\s+(?:in|at|à|en)\s+/giu;
const PLACE_RUN =
  /\p{Lu}[\p{L}'’.-]*(?:\s+(?:\p{Lu}[\p{L}'’.-]*|of|de|del|am|an|sur|upon))*(?:,\s*\p{Lu}[\p{L}'’.-]*(?:\s+(?:\p{Lu}[\p{L}'’.-]*|of|de))*)*/u;

// Roles whose holder is asked for only when the role is the field's head noun ("defense_minister", not "minister_statement").
const ROLE =
  /^(?:minister|premier|governor|secretary|senator|judge|spokesman|spokeswoman|spokesperson|researcher|scientist|developer|artist|actor|actress|star|plumber|candidate|mediator|winner|player|singer|victim|suspect|chef|photographer|journalist|reporter|editor|professor|doctor|nominee|lawyer|attorney|pilot|commissioner|ambassador|king|queen)$/;
// Fields whose value has a written form of its own: only that form answers them, never a name beside the word.
const FORMATS: { field: RegExp; value: RegExp; digits?: number }[] = [
  { field: /^(?:email|mail|e-mail)$/, value: EMAIL },
  { field: /^(?:phone|telephone|tel|fax|mobile)$/, value: /\+?\(?\d[\d\s().-]{5,}\d(?![\d])/gu, digits: 7 },
  {
    field: /^(?:website|url|domain|homepage|link|web)$/,
    value: WEB_ADDRESS,
  },
];

/** The field's head noun: its last word, passing over "name" ("mediator_name" asks for a mediator). */
function headWord(field: FieldQuery): string {
  return [...field.leaf].reverse().find((w) => !/^(?:name|names|full)$/.test(w)) ?? "";
}

/** Whether only a written form (an address, a number) answers the field: such a value is its own evidence of kind. */
export function hasWrittenForm(field: FieldQuery): boolean {
  return stringKind(field) === "format";
}

type StringKind = "place" | "person" | "date" | "text" | "entity" | "format";

function stringKind(field: FieldQuery): StringKind {
  const leaf = field.leaf;
  // The head noun decides first: "groundhog_day_star" asks for a person, "analyst_firm" for a firm.
  const head = headWord(field);
  if (FORMATS.some((f) => f.field.test(head))) return "format";
  if (PERSON.test(head) || ROLE.test(head)) return "person";
  // "carbon_negative_by" asked "by what year": the prompt says which "by" it is.
  if (head === "by" && field.clause?.some((t) => /^(?:year|date|when)$/.test(t))) return "date";
  if (leaf.some((w) => PLACE.test(w))) return "place";
  if (leaf.some((w) => PERSON.test(w)) || /^(?:by|who)$/.test(leaf[leaf.length - 1] ?? "")) return "person";
  if (leaf.some((w) => DATE.test(w))) return "date";
  if (field.words.some((w) => PLACE.test(w))) return "place";
  if (field.words.some((w) => PERSON.test(w))) return "person";
  if (leaf.some((w) => DESCRIPTIVE.test(w))) return "text";
  return "entity";
}

/** Picks the field's text value from the evidence, or null when nothing says it. */
export function extractString(field: FieldQuery, evidence: Evidence[], subject: string[]): Found<string> | null {
  switch (stringKind(field)) {
    case "format":
      return formatted(field, evidence);
    case "place":
      return place(field, evidence, subject);
    case "person":
      return person(field, evidence, subject);
    case "date":
      return date(field, evidence, field.leaf.includes("year") || (field.clause ?? []).includes("year"));
    case "text":
      return (
        afterCopula(field, evidence) ??
        (field.leaf.some((w) => NAMED.test(w)) ? named(field, evidence, subject) : null) ??
        clause(field, evidence)
      );
    case "entity":
      if (namesQuantity(field)) return extractQuantityText(field, evidence);
      return shortAfterCopula(field, evidence) ?? entity(field, evidence, subject);
  }
}

/** afterCopula, when what follows the field's word is itself a name ("the ticker is ACME", "hosted by Joyent"). */
function shortAfterCopula(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const found = afterCopula(field, evidence);
  return found && words(found.value).length <= 4 && /^[\p{Lu}\p{N}]/u.test(found.value) ? found : null;
}

/**
 * A name in the field's best sentences (see ../entities.ts), not the
 * subject's own, nearest the field's words; a name right after "by", "at",
 * "from" or "with" is most often the one asked for ("hosted by Joyent").
 */
function entity(field: FieldQuery, evidence: Evidence[], subject: string[]): Found<string> | null {
  const candidates = entityCandidates(field, evidence, subject, ENTITY_CUE);
  // A company field takes a name written or known as an organisation's over a place or a person ("hotel start-ups in the US").
  if (ORGANISATION.test(headWord(field))) for (const c of candidates) c.score *= organisationFit(c.text);
  const pick = best(candidates);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

const ORGANISATION =
  /^(?:company|companies|firm|organisation|organization|employer|publisher|airline|carrier|bank|union|agency|charity|sponsor|maker|manufacturer|studio|label|broadcaster|retailer|insurer|lender|operator|provider|vendor|supplier|partner|startup|house|group)$/;
function organisationFit(name: string): number {
  if (organisationName(name) || lexiconKinds(name).has("organisation")) return 1.5;
  return placeKinds(name).length || countrySpans(name).length || soundsLikePerson(name) ? 0.5 : 1;
}

const ENTITY_CUE = /(?:^|\s)(?:by|at|from|with|using|to|called|named|as)\s+(?:the\s+)?$/iu;
const PLACE_BEFORE = /(?:^|\s)(?:in|at|near|from|to|on|outside|inside)\s+(?:the\s+)?$/iu;

/**
 * Names in the best sentences scored by closeness to the field's words and by
 * the word before them. A name made only of the field's words ("Executive
 * Director" for executive_director) is the question, not the answer; one
 * that holds them among others ("Royal Shrewsbury Hospital" for hospital) is
 * the very kind of thing asked for.
 */
function entityCandidates(field: FieldQuery, evidence: Evidence[], subject: string[], cue: RegExp) {
  return evidence.slice(0, 8).flatMap((ev, rank) => {
    const fieldWords = termSpans(ev.text, field.terms);
    return entitySpans(ev.text)
      .filter((span) => !isSubjectName(span.text, subject))
      .map((span) => withFieldWord(ev.text, span, fieldWords))
      .flatMap((span) => {
        if (fieldWordsOnly(span, fieldWords)) return [];
        const inside = fieldWords.some((w) => w.index >= span.index && w.end <= span.end);
        const cued = cue.test(ev.text.slice(0, span.index)) ? 1.3 : 1;
        const typed = inside ? 1.5 : proximity(fieldWords, span);
        return [{ text: span.text, score: ev.score * cued * typed * (1 - rank * 0.02), ev }];
      });
  });
}

const TITLE =
  /^(?:executive|director|chief|officer|ceo|cfo|cto|president|vice|chairman|chairwoman|chair|founder|cofounder|premier|deputy|acting|prime|minister|governor|gov|judge|justice|secretary|senator|sen|rep|mayor|coach|manager|general|spokesman|spokeswoman|spokesperson|professor|prof|dr|mr|mrs|ms|sir|dame|lord|lady|king|queen|prince|princess|head|leader|captain|commissioner|ambassador|chancellor|bishop|father|pope|author|editor|analyst|researcher|scientist|engineer|developer|designer|architect|his|her|honour|honor|qc)\.?$/i;

/**
 * The person in a run of capitalised words that opens with their titles:
 * "Wikimedia Foundation Executive Director Katherine Maher" → "Katherine
 * Maher". Null when nothing but titles is left.
 */
function afterTitle(text: string, span: { text: string; index: number; end: number }) {
  const tokens = [...span.text.matchAll(/[^\s]+/g)];
  // A trailing honour ("Neil Ford QC") is not part of the name.
  while (tokens.length && TITLE.test(tokens[tokens.length - 1]![0])) tokens.pop();
  let last = -1;
  tokens.forEach((t, i) => {
    if (TITLE.test(t[0])) last = i;
  });
  const rest = tokens.slice(last + 1);
  if (last < 0 && rest.length === [...span.text.matchAll(/[^\s]+/g)].length) return span;
  if (rest.length < 2) return null;
  const index = span.index + rest[0]!.index;
  const end = span.index + rest[rest.length - 1]!.index + rest[rest.length - 1]![0].length;
  return { text: text.slice(index, end), index, end };
}

/** "Royal Shrewsbury hospital" for a hospital: the field's word written right after the name belongs to it. */
function withFieldWord(text: string, span: { text: string; index: number; end: number }, fieldWords: { index: number; end: number }[]) {
  // A code or acronym ("COP28", "UCU") is a whole name: "COP28 summit" says no more than "COP28".
  if (/^[\p{Lu}\p{N}-]+$/u.test(span.text)) return span;
  const next = fieldWords.find((w) => w.index > span.end && /^\s+$/.test(text.slice(span.end, w.index)));
  return next ? { text: text.slice(span.index, next.end), index: span.index, end: next.end } : span;
}

/** Whether a name is made only of the field's own words. */
function fieldWordsOnly(span: { text: string; index: number; end: number }, fieldWords: { index: number; end: number }[]): boolean {
  const inside = fieldWords.filter((w) => w.index >= span.index && w.end <= span.end).length;
  return inside > 0 && inside >= words(span.text).length;
}

/** Whether a name is the question's own subject: all its words, or two of them, are the subject's ("Andrew Alturo Fahie" for Andrew Fahie). */
function isSubjectName(name: string, subject: string[]): boolean {
  const own = words(name).filter((w) => !HONORIFIC.test(w));
  const shared = own.filter((w) => subject.includes(w)).length;
  return own.length > 0 && (shared === own.length || shared >= 2);
}

const HONORIFIC = /^(?:mr|mrs|ms|dr|prof|sir|dame|gov|sen|rep|st)$/;

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
  // The item's own name is no answer about it ("film" of Brad Pitt is not "Brad Pitt").
  return extractString(field, evidence, [...subject, ...words(item.text)]);
}

/** An e-mail address, phone number or web address in the field's best sentences, nearest the field's words. */
function formatted(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const head = headWord(field);
  const format = FORMATS.find((f) => f.field.test(head))!;
  const candidates = evidence.slice(0, 8).flatMap((ev) => {
    const fieldWords = termSpans(ev.text, field.terms);
    return [...ev.text.matchAll(format.value)]
      .filter((m) => (m[0].match(/\d/g) ?? []).length >= (format.digits ?? 0))
      .map((m) => {
        const text = m[0].replace(/[.)]+$/, "");
        return { text, score: ev.score * proximity(fieldWords, { index: m.index, end: m.index + text.length }), ev };
      });
  });
  const pick = best(candidates);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

function best<T extends { score: number }>(candidates: T[]): T | undefined {
  return candidates.sort((a, b) => b.score - a.score)[0];
}

/** A capitalised name beside the role word, not the subject itself; "A and B" when two are named together. */
function person(field: FieldQuery, evidence: Evidence[], subject: string[]): Found<string> | null {
  const candidates = evidence.slice(0, 8).flatMap((ev) => {
    const fieldWords = termSpans(ev.text, field.terms);
    const headWords = termSpans(ev.text, field.leaf.slice(-1));
    return (
      answerNames(ev.text, subject)
        .map((span) => afterTitle(ev.text, span))
        // "Executive Director" for executive_director is the role, not who holds it.
        .filter((span) => span !== null && !isSubjectName(span.text, subject) && !fieldWordsOnly(span, fieldWords))
        .map((span) => span!)
        .map((span) => {
          let end = span.end;
          const joined = /^\s+(?:and|und|et|y|&)\s+/u.exec(ev.text.slice(end));
          if (joined) {
            const next = nameSpans(ev.text.slice(end + joined[0].length))[0];
            if (next && next.index === 0) end = end + joined[0].length + next.end;
          }
          const before = ev.text.slice(0, span.index);
          const after = /(?:^|\s)(?:by|von|par|por)\s+$/iu.test(before) ? 1.5 : 1;
          // "Acting Premier Natalio Wheatley": the role's head word as the name's title; "the Territory's Premier X"
          // makes the Territory no person.
          const owner = /^['’]s\s/u.test(ev.text.slice(end)) ? 0.3 : 1;
          const titled = headWords.some(
            (w) => w.end <= span.index && span.index - w.end <= 40 && !/[.;,]/.test(ev.text.slice(w.end, span.index)),
          );
          const role = titled ? 1.5 : 1;
          const text = ev.text.slice(span.index, end);
          // The lexicon's given names and places: "Ammar Askar" reads as a person, "Tunis" or "Wells Fargo" as none.
          const known = soundsLikePerson(text) ? 1.4 : knownNotPerson(text) ? 0.5 : 1;
          return {
            text,
            score: ev.score * after * owner * role * known * proximity(fieldWords, { index: span.index, end }),
            ev,
          };
        })
    );
  });
  const pick = best(candidates);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

/** The places after a location cue: "Springfield, Oregon, United States". */
function place(field: FieldQuery, evidence: Evidence[], subject: string[]): Found<string> | null {
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
  if (!pick)
    return wantsCountry
      ? country(field, evidence)
      : placeName(field, evidence, subject, wantsCity ? "city" : wantsRegion ? "region" : null);
  const value = wantsCity ? pick.parts[0]! : wantsCountry ? pick.parts[pick.parts.length - 1]! : wantsRegion ? pick.parts[1]! : pick.text;
  return { value, sentences: [pick.ev.sentence] };
}

/**
 * Without a location cue, a place is a name after "in", "at", "near"… or
 * after the field's own word ("the US state of Louisiana") in the field's
 * best sentences, or one the lexicon knows for a place; the kind of place
 * the field names (a city, a state) is preferred, and a person's name is not
 * taken for one. The place the question names ("the roundtable in Barbados") is
 * where it happened, not the answer.
 */
function placeName(field: FieldQuery, evidence: Evidence[], subject: string[], wants: NameKind | null): Found<string> | null {
  const head = headWord(field);
  const named = new RegExp(String.raw`(?:^|\s)${head.replace(/[^\p{L}\p{N}]/gu, "")}\s+of\s+$`, "iu");
  const cued = entityCandidates(field, evidence, subject, PLACE_BEFORE).flatMap((c) => {
    const before = c.ev.text.slice(0, c.ev.text.indexOf(c.text));
    const kinds = placeKinds(c.text);
    const cue = head && named.test(before) ? 1.5 : PLACE_BEFORE.test(before) ? 1 : kinds.length ? 0.7 : 0;
    if (cue === 0) return [];
    const fit = wants === null ? (kinds.length ? 1.2 : 1) : kinds.includes(wants) ? 1.5 : kinds.length ? 0.5 : 1;
    const person = kinds.length === 0 && soundsLikePerson(c.text) ? 0.5 : 1;
    return [{ ...c, score: c.score * cue * fit * person }];
  });
  const pick = best(cued);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

/** Without a location cue, a country field takes the country named nearest the field's (or the prompt's) words. */
function country(field: FieldQuery, evidence: Evidence[]): Found<string> | null {
  const candidates = evidence.slice(0, 8).flatMap((ev) => {
    const fieldWords = termSpans(ev.text, field.terms);
    return countrySpans(ev.text).map((span) => ({ text: span.text, score: ev.score * proximity(fieldWords, span), ev }));
  });
  const pick = best(candidates);
  return pick ? { value: pick.text, sentences: [pick.ev.sentence] } : null;
}

/** A date, or only its year for a field that asks for one ("founding_year": "1997", not "December 1997"). */
function date(field: FieldQuery, evidence: Evidence[], yearOnly: boolean): Found<string> | null {
  const candidates = evidence.slice(0, 8).flatMap((ev) => {
    const spans = yearOnly ? [] : dateSpans(ev.text);
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
  // A far weaker sentence's "journal Technology" must not beat the best one's "New England Journal of Medicine".
  const floor = (evidence[0]?.score ?? 0) * 0.5;
  for (const ev of evidence.slice(0, 4)) {
    if (ev.score < floor) break;
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
