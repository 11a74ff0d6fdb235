/**
 * Fills an `output_format` without an LLM: every field by typed extraction
 * from the ranked passages (see fields.ts for how a field's sentences are
 * found, scalars.ts / strings.ts / lists.ts for how a value is read from
 * them). A field nothing supports is null, never a guess, and the result
 * is checked against the schema before it leaves: a field that would not
 * conform becomes null.
 */
import { conforms, type JsonSchema, type OutputShape } from "../../output-format.ts";
import type { EvidenceSource } from "../../types.ts";
import { queryTerms, SentenceIndex, type EvidenceSentence } from "../evidence.ts";
import { subjectPhrases, subjectWords } from "../subject.ts";
import { clauseTerms } from "./clauses.ts";
import { fieldQuery, FieldSearch, hasTerm, nameWords, type Evidence, type FieldQuery } from "./fields.ts";
import { extractItems, itemEvidence, type Item } from "./lists.ts";
import { namedItems } from "./named-items.ts";
import { rowObjects } from "./rows.ts";
import { extractBoolean, extractNumber, mentionFit, type Found } from "./scalars.ts";
import { extractItemString, extractString, hasWrittenForm } from "./strings.ts";
import { nameSpans, numberMentions } from "../values.ts";

type Citations = Map<number, string[]>;

interface Scope {
  prompt: string;
  sources: EvidenceSource[];
  search: FieldSearch;
  index: SentenceIndex;
  subject: string[];
  phrases: string[][];
  /** Set inside one list item: the evidence is that item's own text. */
  item?: { item: Item; evidence: Evidence[]; primary?: string | undefined };
}

const MAX_OBJECTS = 20;
// Sub-fields that hold the item's own name: products: [{name, price}].
const ITEM_NAME = /^(?:name|title|label|item|product|model|brand)$/;

export function fillOutputFormat(input: {
  prompt: string;
  shape: { [field: string]: OutputShape };
  schema: JsonSchema;
  sources: EvidenceSource[];
}): {
  value: Record<string, unknown>;
  citations: Map<number, string[]>;
} {
  const index = new SentenceIndex(input.sources);
  const scope: Scope = {
    prompt: input.prompt,
    sources: input.sources,
    search: new FieldSearch(index, input.prompt),
    index,
    subject: subjectWords(input.prompt),
    phrases: subjectPhrases(input.prompt),
  };
  const properties = (input.schema.properties ?? {}) as Record<string, JsonSchema>;
  const value: Record<string, unknown> = {};
  const citations: Citations = new Map();
  for (const name of Object.keys(properties)) {
    const shape = input.shape[name];
    const own: Citations = new Map();
    const filled = shape === undefined ? null : fill(shape, [name], scope, own);
    // The schema is the contract: a value that would break it is dropped, not sent.
    value[name] = filled !== null && conforms(properties[name]!, filled) ? filled : null;
    if (value[name] !== null) for (const [id, sentences] of own) for (const s of sentences) cite(citations, id, s);
  }
  if (!conforms(input.schema, value)) throw new Error("typed extraction built a value outside its own schema");
  return { value, citations };
}

function fill(shape: OutputShape, path: string[], scope: Scope, cites: Citations): unknown {
  const field = fieldQuery(path);
  if (typeof shape === "string") return scalar(shape, field, scope, cites);
  if (Array.isArray(shape)) return list(shape[0], field, scope, cites);
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(shape)) out[name] = fill(child, [...path, name], scope, cites);
  // An object none of whose fields the sources support is itself unsupported.
  return Object.values(out).every((v) => v === null) ? null : out;
}

/**
 * A field whose own words no source uses ("result", "country" over a page
 * that says "Sudan") is asked by the prompt instead: its terms become the
 * prompt's, less the subject's name, so "How many titles…" finds "over 130
 * titles" (and "How many employees…" over the same page finds nothing).
 */
function asked(named: FieldQuery, scope: Scope): FieldQuery {
  if (scope.item) return named;
  // The prompt's own words for this field; an item's fields are read from its own text instead.
  const field = named.path.length === 1 ? { ...named, clause: clauseTerms(scope.prompt, named, scope.subject) } : named;
  // An age is written beside the person's name ("Eloise Parry, 21,"), rarely beside the word "age".
  if (field.leaf.some((w) => /^(?:age|aged|old)$/.test(w)))
    return { ...field, terms: [...field.terms, ...scope.subject.filter((t) => scope.index.mentions(t))] };
  // The subject's name in the field ("chrome_milestone" about Chrome) is no sign the sources speak of the field.
  if (field.terms.some((t) => !scope.subject.includes(t) && scope.index.mentions(t))) return field;
  // Else the prompt's words for it: its clause ("in which Chrome milestone does it roll out") or the whole prompt.
  const fallback = field.clause?.length ? field.clause : queryTerms(scope.prompt);
  const terms = fallback.filter((t) => !scope.subject.includes(t) && scope.index.mentions(t));
  return terms.length ? { ...field, terms } : field;
}

function evidenceFor(field: FieldQuery, scope: Scope, formed = false): Evidence[] {
  if (!scope.item) return scope.search.rank(field, undefined, formed);
  // Inside an item, its stretches that name the field come first; the others may still hold a bare "$20".
  const named = new Set(scope.item.evidence.filter((ev) => hasTerm(ev, field.terms)));
  return [...scope.item.evidence].sort((a, b) => Number(named.has(b)) - Number(named.has(a)));
}

function scalar(type: string, named: FieldQuery, scope: Scope, cites: Citations): unknown {
  const field = asked(named, scope);
  if (
    scope.item &&
    type === "string" &&
    ((field.leaf.length === 1 && ITEM_NAME.test(field.leaf[0]!)) || field.path.at(-1) === scope.item.primary)
  ) {
    return record({ value: scope.item.item.text, sentences: [scope.item.item.sentence] }, cites);
  }
  if (!scope.item && field.path.length === 1 && field.leaf.every((w) => ITEM_NAME.test(w)) && type === "string")
    return record(subjectName(scope), cites);
  const evidence = evidenceFor(field, scope, type === "string" && hasWrittenForm(field));
  switch (type) {
    case "integer":
    case "number":
      return record(extractNumber(field, evidence, type === "integer", Boolean(scope.item)), cites);
    case "boolean":
      return record(
        extractBoolean(field, evidence, {
          mentioned: (t) => scope.index.mentions(t),
          subject: scope.subject,
          before: (s) => scope.index.before(s),
        }),
        cites,
      );
    case "string":
      return record(
        scope.item ? extractItemString(field, scope.item.item, evidence, scope.subject) : extractString(field, evidence, scope.subject),
        cites,
      );
    case "array":
      return list("string", field, scope, cites);
  }
  return null;
}

function list(itemShape: OutputShape, named: FieldQuery, scope: Scope, cites: Citations): unknown {
  const field = asked(named, scope);
  const evidence = evidenceFor(field, scope);
  if (itemShape === "integer" || itemShape === "number") return numbers(field, evidence, itemShape === "integer", cites);
  if (typeof itemShape === "string" && itemShape !== "string") return null; // lists of yes/no or of lists: nothing to read them from
  if (Array.isArray(itemShape)) return null;
  let items = extractItems(field, evidence, scope.item ? null : scope.index);
  if (typeof itemShape === "object" && !scope.item) {
    // Rows of one layout under words that name the list ("The overall rankings of the countries: 1. Finland 2. Norway"),
    // where they hold more items than the sentences and list lines do: a table's or a numbered list's items.
    const rows = rowObjects(itemShape, field, scope.sources);
    if (rows && rows.objects.length > items.length) {
      for (const row of rows.rows) cite(cites, row.sourceId, row.text);
      return rows.objects;
    }
  }
  let stretches: Map<Item, Evidence[]> | null = null;
  // The item's own name goes to its first text field ("company", "location", "tribe") when none is called name or title.
  const fields = typeof itemShape === "object" && !Array.isArray(itemShape) ? Object.entries(itemShape) : [];
  const primary = fields.some(([n, t]) => t === "string" && ITEM_NAME.test(n)) ? undefined : fields.find(([, t]) => t === "string")?.[0];
  if (fields.length && !scope.item && (items.length === 0 || (primary && !namesLike(items)))) {
    // No list names the field, or its items are phrases where names are asked for (a location, a company):
    // the names a sentence strings together may be the items.
    const named = namedItems(field, evidence, scope.subject);
    if (named.items.length >= 2 || items.length === 0) ({ items, stretches } = named);
  }
  if (items.length === 0) return null;
  if (itemShape === "string") {
    for (const item of items) cite(cites, item.sentence.sourceId, item.sentence.text);
    return items.map((i) => i.text);
  }
  const kept = items.slice(0, MAX_OBJECTS);
  stretches ??= itemEvidence(kept, scope.index);
  const objects = kept.map((item) =>
    fill(itemShape, field.path, { ...scope, item: { item, evidence: stretches.get(item) ?? [], primary } }, cites),
  );
  // An item of which nothing at all is known is left out rather than sent as nulls.
  const known = objects.filter((o) => o !== null);
  return known.length ? known : null;
}

/** Whether most items are written as names (capitalised or with digits), not as phrases. */
function namesLike(items: Item[]): boolean {
  return items.filter((i) => /^[\p{Lu}\p{N}]/u.test(i.text)).length * 2 >= items.length;
}

/** A list of numbers: every distinct number of the field's kind in its best sentences. */
function numbers(field: FieldQuery, evidence: Evidence[], integer: boolean, cites: Citations): number[] | null {
  const out: number[] = [];
  const best = evidence[0]?.score ?? 0;
  for (const ev of evidence) {
    if (ev.score < best * 0.5) break;
    for (const m of numberMentions(ev.text)) {
      if ((integer && !Number.isInteger(m.value)) || mentionFit(field, m) < 1 || out.includes(m.value)) continue;
      out.push(m.value);
      cite(cites, ev.sentence.sourceId, ev.sentence.text);
    }
  }
  return out.length ? out : null;
}

/** The subject as the sources spell it ("Acme Corporation" for "Acme Corp"): the longest name holding all its words. */
function subjectName(scope: Scope): Found<string> | null {
  const phrase = scope.phrases[0];
  if (!phrase) return null;
  let pick: { text: string; sentence: EvidenceSentence } | null = null;
  for (const sentence of scope.index.sentences) {
    for (const span of nameSpans(sentence.text, 1)) {
      const own = nameWords(span.text);
      if (phrase.every((w) => own.some((o) => o.startsWith(w) || w.startsWith(o))) && (!pick || span.text.length > pick.text.length))
        pick = { text: span.text, sentence };
    }
  }
  return pick ? { value: pick.text, sentences: [pick.sentence] } : null;
}

function record<T>(found: Found<T> | null, cites: Citations): T | null {
  if (!found) return null;
  for (const s of found.sentences) cite(cites, s.sourceId, s.text);
  return found.value;
}

function cite(cites: Citations, id: number, sentence: string): void {
  const list = cites.get(id) ?? [];
  if (!list.includes(sentence)) list.push(sentence);
  cites.set(id, list);
}
