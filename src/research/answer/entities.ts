/**
 * Named things a text field most often asks for ("which company hosts it",
 * "the hospital", "the CPU model"): names of one or more capitalised words,
 * acronyms, product codes ("Cortex-A53", "M83"), domains and e-mail
 * addresses, as verbatim spans. A capitalised word that only opens its
 * sentence ("Interest payments…") is not a name; the model's part-of-speech
 * tags are no help there, as it reads most capitalised words as proper nouns.
 */
import { countrySpans } from "./countries.ts";
import { tagged } from "./english.ts";
import { nameSpans, type Span } from "./values.ts";

const HOST = String.raw`(?<![\p{L}\p{N}@.-])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|gov|edu|co|info|biz|tv|ai|app|dev|uk|de|fr|eu)`;
const DOMAIN = new RegExp(String.raw`${HOST}(?![\p{L}\p{N}-])`, "giu");
/** A web address as a page writes it: a domain, with its scheme and path when given ("https://example.org/about"). */
export const WEB_ADDRESS = new RegExp(String.raw`(?:https?:\/\/)?${HOST}(?:\/[^\s,;)]*)?(?![\p{L}\p{N}-])`, "giu");
export const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gu;
const CODE = /^(?=[\p{L}\p{N}./-]*\d)(?=[\p{L}\p{N}./-]*\p{Lu})[\p{L}\p{N}][\p{L}\p{N}./-]*[\p{L}\p{N}]$/u;

// Days are capitalised but name no thing a field asks for.
const WEEKDAY = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/;

// A title in quotes: “Once Upon a Time in Hollywood”, "Marriage Story".
const QUOTED = /["“]((?:\p{Lu}|\d)[^"“”]{1,80}?)[,.]?["”]/gu;

export function entitySpans(text: string): Span[] {
  const out: Span[] = [];
  // Whole names first: a quoted title and a country named with "and" ("Antigua and Barbuda") are one name each.
  for (const m of text.matchAll(QUOTED)) {
    const title = m[1]!.replace(/[,.]$/, "");
    if (title.split(/\s+/).length <= 10) out.push({ text: title, index: m.index + 1, end: m.index + 1 + title.length });
  }
  for (const span of countrySpans(text)) if (!overlaps(out, span)) out.push(span);
  for (const span of joinedOrganisations(text, nameSpans(text, 1))) {
    // A longer name holding a country is its own thing: "New England Journal of Medicine", not "England".
    const within = out.filter((s) => s.index >= span.index && s.end <= span.end && s.end - s.index < span.end - span.index);
    if (within.length && within.length === out.filter((s) => overlaps([s], span)).length)
      for (const s of within) out.splice(out.indexOf(s), 1);
    if (WEEKDAY.test(span.text) || overlaps(out, span)) continue;
    const single = !/\s/.test(span.text);
    // "Paris-based", "Dutch-born": a capitalised word joined to a lowercase one is an adjective, not a name.
    if (single && /^\p{Lu}\p{Ll}+-\p{Ll}+$/u.test(span.text)) continue;
    // A single capitalised word opening the sentence is an ordinary word, unless written like a name (CEO, WebMD).
    if (single && span.index === 0 && !/^\p{Lu}[\p{Ll}]*\p{Lu}/u.test(span.text)) continue;
    out.push(span);
  }
  for (const m of text.matchAll(EMAIL)) out.push({ text: m[0], index: m.index, end: m.index + m[0].length });
  for (const m of text.matchAll(DOMAIN))
    if (!out.some((s) => s.index <= m.index && s.end >= m.index + m[0].length))
      out.push({ text: m[0], index: m.index, end: m.index + m[0].length });
  for (const token of tagged(text)) {
    if (!CODE.test(token.text) || out.some((s) => s.index <= token.start && s.end >= token.end)) continue;
    out.push({ text: token.text, index: token.start, end: token.end });
  }
  return out.sort((a, b) => a.index - b.index);
}

function overlaps(spans: Span[], span: Span): boolean {
  return spans.some((s) => s.index < span.end && span.index < s.end);
}

// The last word of an organisation's name: "University and College Union" is one name, "Bank of America and Wells Fargo" two.
const ORGANISATION_HEAD =
  /^(?:Union|Association|Institute|Society|Council|Foundation|Federation|Commission|Committee|League|Alliance|Coalition|Party|Company|Corporation|Group|Trust|Agency|Authority|Board|Department|Ministry|Organization|Organisation|Center|Centre|College|School|University|Museum|Library|Club)$/u;
// Words that end only a company's name (besides the heads above).
const COMPANY_SUFFIX =
  /^(?:Inc|Corp|Ltd|LLC|plc|GmbH|AG|SA|Co|Holdings|Airlines|Airways|Bank|Partners|Studios|Labs|Technologies|Systems|Hotels|Motors|Media)\.?$/u;

/** Whether a name is written as an organisation's: its last word is one only organisations end in. */
export function organisationName(name: string): boolean {
  const last = /([\p{L}]+\.?)$/u.exec(name)?.[1] ?? "";
  return ORGANISATION_HEAD.test(last) || COMPANY_SUFFIX.test(last);
}

/**
 * A name ending in an organisation's head word, written right after a single
 * capitalised word and "and" ("University and College Union"), is one name
 * with that word: nameSpans stops at the lowercase "and".
 */
function joinedOrganisations(text: string, spans: Span[]): Span[] {
  const out: Span[] = [];
  for (const span of spans) {
    const last = /(\p{L}+)$/u.exec(span.text)?.[1] ?? "";
    const before = /(?:^|[^\p{L}'’-])(\p{Lu}\p{Ll}+)\s+and\s+$/u.exec(text.slice(0, span.index));
    const previous = out[out.length - 1];
    if (ORGANISATION_HEAD.test(last) && before) {
      const index = span.index - before[0].length + before[0].indexOf(before[1]!);
      // Only a lone word: "Bank of America and Wells Fargo Bank" joins nothing.
      if (previous && previous.index === index && previous.end === index + before[1]!.length) {
        out[out.length - 1] = { text: text.slice(index, span.end), index, end: span.end };
        continue;
      }
    }
    out.push(span);
  }
  return out;
}
