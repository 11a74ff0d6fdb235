/**
 * List items written into prose rather than as a list: "140 pilot whales on
 * Stewart Island, 10 pygmy whales on Ninety Mile Beach, 51 on the Chatham
 * Islands", "its $19 billion acquisition of WhatsApp, its $1 billion buyout
 * of Instagram". The items are the names in the best sentence that names
 * two or more things other than the subject; what each item's other fields
 * say is read from its own stretch of the sentence, from the name before it
 * to the name after it.
 */
import { words } from "../../../terms.ts";
import type { Evidence, FieldQuery } from "./fields.ts";
import { termSpans } from "../evidence.ts";
import { entitySpans } from "../entities.ts";
import type { Item } from "./lists.ts";

const MAX_ITEMS = 20;
const SENTENCES_WEIGHED = 5;

export function namedItems(
  field: FieldQuery,
  evidence: Evidence[],
  subject: string[],
): { items: Item[]; stretches: Map<Item, Evidence[]> } {
  let pick: { ev: Evidence; spans: { text: string; index: number; end: number }[] } | null = null;
  for (const ev of evidence.slice(0, SENTENCES_WEIGHED)) {
    const fieldWords = termSpans(ev.text, field.terms);
    const spans = entitySpans(ev.text).filter((span) => {
      const own = words(span.text);
      const inside = fieldWords.filter((w) => w.index >= span.index && w.end <= span.end).length;
      return !own.every((w) => subject.includes(w)) && inside < own.length;
    });
    // How well the sentence speaks of the field counts more than how many names it holds.
    const weight = (e: Evidence, n: number) => e.score * Math.sqrt(n);
    if (spans.length >= 2 && (!pick || weight(ev, spans.length) > weight(pick.ev, pick.spans.length))) pick = { ev, spans };
  }
  const items: Item[] = [];
  const stretches = new Map<Item, Evidence[]>();
  if (!pick) return { items, stretches };
  const { ev, spans } = pick;
  spans.slice(0, MAX_ITEMS).forEach((span, i) => {
    if (items.some((item) => item.text === span.text)) return;
    const from = i > 0 ? spans[i - 1]!.end : 0;
    const to = i + 1 < spans.length ? spans[i + 1]!.index : ev.text.length;
    const item: Item = { text: span.text, sentence: ev.sentence };
    items.push(item);
    stretches.set(item, [{ sentence: ev.sentence, text: ev.text.slice(from, to), score: ev.score }]);
  });
  return { items, stretches };
}
