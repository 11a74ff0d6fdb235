/**
 * Recognisers for the kinds of value a question asks for: numbers (with
 * thousands separators, scales, currencies and percentages), years and dates,
 * name-like capitalised phrases, and negation. Both the extractive answer
 * (to prefer sentences holding the kind of thing asked for) and typed
 * extraction (to pull the value out) use them. Spans carry their offsets so
 * the extracted text stays a verbatim slice of the sentence.
 */

export interface Span {
  text: string;
  index: number;
  end: number;
}

export interface NumberMention extends Span {
  value: number;
  isYear: boolean;
  isPercent: boolean;
  isMoney: boolean;
  /** A unit of measure right after the number ("330 metres", "1,063 ft"). */
  unit: string | null;
  /** Spelled out: "eight planets". */
  isWord: boolean;
}

// Counts spelled out; "one"/"ein"/"un" are left out, being far more often pronouns or articles.
const NUMBER_WORDS: Record<string, number> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  dozen: 12,
  zwei: 2,
  drei: 3,
  vier: 4,
  fünf: 5,
  sechs: 6,
  sieben: 7,
  acht: 8,
  neun: 9,
  zehn: 10,
  zwölf: 12,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
  douze: 12,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  doce: 12,
};
// A spelled-out count may carry a scale word: "eight million".
const NUMBER_WORD = new RegExp(
  `(?<![\\p{L}])(${Object.keys(NUMBER_WORDS).join("|")})(?:[\\s-]+(thousand|million|billion|trillion))?(?![\\p{L}])`,
  "giu",
);

const MONTH_NAMES =
  "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec|" +
  "januar|jänner|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|" +
  "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre";
const MONTH = `(?:${MONTH_NAMES})\\.?`;
// "31 March 1889", "31. März 1889", "March 31, 1889", "March 1889", "1889-03-31", "le 31 mars 1889".
const DATE = new RegExp(
  `\\b(?:\\d{1,2}(?:st|nd|rd|th|er)?\\.?\\s+(?:de\\s+)?${MONTH}(?:\\s+(?:de\\s+)?\\d{4})?|${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,\\s*\\d{4})?|${MONTH}\\s+\\d{4}|\\d{4}-\\d{2}-\\d{2})(?![\\p{L}\\d])`,
  "giu",
);
const YEAR = /(?<![\p{L}\p{N}.,$€£¥])(1[0-9]{3}|20[0-9]{2})(?![\p{L}\p{N}%]|[.,]\d)/gu;

const SCALES: Record<string, number> = {
  thousand: 1e3,
  million: 1e6,
  millions: 1e6,
  millionen: 1e6,
  mio: 1e6,
  billion: 1e9,
  billions: 1e9,
  milliarde: 1e9,
  milliarden: 1e9,
  milliard: 1e9,
  milliards: 1e9,
  mrd: 1e9,
  trillion: 1e12,
  mille: 1e3,
  millón: 1e6,
  millones: 1e6,
};
const SHORT_SCALES: Record<string, number> = { k: 1e3, m: 1e6, mn: 1e6, b: 1e9, bn: 1e9 };
const UNITS =
  "metres|meters|metre|meter|m|km|kilometres|kilometers|cm|mm|ft|feet|foot|miles|mile|mi|inches|inch|kg|kilograms|grams|tonnes|tons|tonnen|lb|lbs|pounds|" +
  "hectares|ha|acres|km²|m²|sq|square|litres|liters|hours|hour|minutes|min|seconds|days|years|stories|storeys|floors|mètres|mètre|metros|metro|stockwerke|" +
  "degrees|degree|°c|°f|°|celsius|fahrenheit|tb|gb|mb|kb|gbps|mbps|ghz|mhz|megapixels|mp|mah|kwh|kw|watts|decibels|db|mph|km/h";
const NUMBER = new RegExp(
  `(?<![\\p{L}\\p{N}.,])([$€£¥]|US\\$|USD\\s|EUR\\s)?(\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d{1,3}(?:\\.\\d{3}){2,}|\\d{1,3}(?:[\\u00a0\\u202f]\\d{3})+|\\d+(?:[.,]\\d+)?)` +
    `(?:\\s?(%|percent|per cent|prozent|pour cent|por ciento))?` +
    `(?:(?:\\s|-)?(thousand|millions?|millionen|billions?|milliarden?|milliards?|trillion|mille|millón|millones|mio|mrd)\\b\\.?)?` +
    `(?:(k|mn|m|bn|b)(?![\\p{L}]))?` +
    `(?:(?:\\s|-)?(€|euros?|dollars?|usd|eur|pounds sterling|yuan|yen|rupees|kronor|krona|sek|gbp|francs?)(?![\\p{L}]))?` +
    `(?:\\s?(?:-\\s?)?(${UNITS})(?![\\p{L}]))?`,
  "giu",
);

/** Every number in the text, parsed, with what kind of quantity it looks like. */
export function numberMentions(text: string): NumberMention[] {
  const out: NumberMention[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const [raw, prefix, digits, percent, scaleWord, shortScale, suffixCurrency, unit] = m;
    if (!digits) continue;
    let value = parseDigits(digits);
    const currency = Boolean(prefix || suffixCurrency);
    if (scaleWord) value *= SCALES[scaleWord.toLowerCase().replace(/\.$/, "")] ?? 1;
    // One-letter scales count only after a currency sign: "40m" alone is more likely metres.
    if (shortScale && prefix) value *= SHORT_SCALES[shortScale.toLowerCase()] ?? 1;
    value = Number(value.toPrecision(12)); // 2.1 million is 2100000, not 2100000.0000000002
    // "-6.6C", "minus 6.6 degrees"; not the dash of a range or a score ("106-103").
    if (!prefix && /(?:^|[\s(])(?:[-−]|minus\s+|negative\s+)$/iu.test(text.slice(Math.max(0, m.index - 10), m.index))) value = -value;
    if (!Number.isFinite(value)) continue;
    const trimmed = raw.trimEnd();
    const plain = !prefix && !percent && !scaleWord && !shortScale && !suffixCurrency;
    out.push({
      text: trimmed,
      index: m.index,
      end: m.index + trimmed.length,
      value,
      isYear: plain && /^(1[0-9]{3}|20[0-9]{2})$/.test(digits),
      isPercent: Boolean(percent),
      isMoney: currency,
      unit: (unit ?? (shortScale && !prefix ? shortScale : null))?.toLowerCase() ?? null,
      isWord: false,
    });
  }
  for (const m of text.matchAll(NUMBER_WORD)) {
    const value = NUMBER_WORDS[m[1]!.toLowerCase()]! * (m[2] ? SCALES[m[2].toLowerCase()]! : 1);
    out.push({
      text: m[0],
      index: m.index,
      end: m.index + m[0].length,
      value,
      isYear: false,
      isPercent: false,
      isMoney: false,
      unit: null,
      isWord: true,
    });
  }
  return out.sort((a, b) => a.index - b.index);
}

function parseDigits(digits: string): number {
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(digits)) return Number(digits.replace(/,/g, "")); // 1,234.5
  if (/^\d{1,3}(\.\d{3}){2,}$/.test(digits)) return Number(digits.replace(/\./g, "")); // 1.234.567
  if (/[\u00a0\u202f]/.test(digits)) return Number(digits.replace(/[\u00a0\u202f]/g, "")); // 1 234
  return Number(digits.replace(",", ".")); // 3.5, and the European 3,5
}

/** Four-digit years (1000–2099) standing alone, not parts of larger numbers or money. */
export function yearMentions(text: string): (Span & { value: number })[] {
  return [...text.matchAll(YEAR)].map((m) => ({ text: m[1]!, index: m.index, end: m.index + m[1]!.length, value: Number(m[1]) }));
}

/** Calendar dates, longest forms first, as verbatim spans. */
export function dateSpans(text: string): Span[] {
  return [...text.matchAll(DATE)].map((m) => ({ text: m[0], index: m.index, end: m.index + m[0].length }));
}

export function hasDate(text: string): boolean {
  return yearMentions(text).length > 0 || dateSpans(text).length > 0;
}

// Capitalised words that start sentences or phrases without naming anyone.
const NOT_NAMES = new Set(
  (
    "the a an in on at of for and but or it its this that these those he she they we his her their our after before when while since during " +
    "however today yesterday also although as by from with to if then there here what who which where why how " +
    "der die das ein eine im am und von mit für es er sie le la les un une et du des de il elle en el los las y "
  ).split(" "),
);
const CONNECTORS = new Set("de da di van von der den du la le del bin al y of & dos das".split(" "));
const CAPITALISED = /^(?:\p{Lu}[\p{L}'’-]*\.?|\p{Lu}\.)$/u;

/**
 * Runs of capitalised words ("Gustave Eiffel", "Wile E. Coyote", "Bank of
 * America"), without a leading function word ("The", "In"). Month names are
 * excluded; `minWords` 2 keeps single capitalised sentence openers out.
 */
export function nameSpans(text: string, minWords = 2): Span[] {
  const tokens = [...text.matchAll(/[\p{L}\p{N}'’&.-]+/gu)];
  const out: Span[] = [];
  let run: RegExpExecArray[] = [];
  const flush = () => {
    while (run.length && NOT_NAMES.has(run[0]![0].toLowerCase().replace(/\.$/, ""))) run.shift();
    while (run.length && CONNECTORS.has(run[run.length - 1]![0].toLowerCase())) run.pop();
    const named = run.filter((t) => !isMonth(t[0]));
    if (named.length >= minWords && named.length === run.length) {
      const first = run[0]!;
      const last = run[run.length - 1]!;
      // Keep an initial's period ("E."), drop a sentence's period and a possessive ("Eiffel's").
      const end = last.index + last[0].replace(/['’]s$/u, "").replace(/\.$/, last[0].length <= 2 ? "." : "").length;
      out.push({ text: text.slice(first.index, end), index: first.index, end });
    }
    run = [];
  };
  for (const token of tokens) {
    const word = token[0];
    const gap = run.length ? text.slice(run[run.length - 1]!.index + run[run.length - 1]![0].length, token.index) : "";
    if (run.length && !/^\s+$/.test(gap)) flush(); // a comma or other punctuation ends a name
    const lower = word.toLowerCase();
    if ((CAPITALISED.test(word) && !NOT_NAMES.has(lower)) || (run.length > 0 && CONNECTORS.has(lower))) {
      run.push(token as RegExpExecArray);
      if ((/[^.]\.$/.test(word) && word.length > 2) || /['’]s$/u.test(word)) flush(); // "Corp." may end a sentence
    } else {
      flush();
      if (CAPITALISED.test(word)) run.push(token as RegExpExecArray); // "The" may open a name; flush() trims it
    }
  }
  flush();
  return out;
}

/**
 * Whether a name (its lowercase words) is one of the subject's words, or
 * their acronym: "United States" for "US", "European Union" for "EU".
 */
export function namesSubjectWord(name: string[], subject: string[]): boolean {
  return name.some((w) => subject.includes(w)) || abbreviated(name, subject);
}

/** Whether the subject holds the name's acronym ("us" for "United States"). */
export function abbreviated(name: string[], subject: string[]): boolean {
  const content = name.filter((w) => !CONNECTORS.has(w));
  return content.length >= 2 && subject.includes(content.map((w) => w[0]).join(""));
}

const MONTH_WORD = new RegExp(`^(?:${MONTH_NAMES})\\.?$`, "i");

function isMonth(word: string): boolean {
  return MONTH_WORD.test(word);
}

const NEGATIONS =
  /\b(?:not|no|never|no longer|none|neither|nor|without|cannot|lacks?|lacking|ceased|stopped|discontinued|(?:has |have |had )?(?:failed|fails|fail|refused|refuses|declined|declines|unable|struggling|struggled|struggles|yet) to|resist|resists|resisting|resisted|rejects|rejected|rejecting|opposes|opposed|opposing|denied|denies|instead of|rather than|in place of|take the place of|nicht|kein|keine|keinen|keiner|nie|niemals|ohne|ne|pas|jamais|aucun|aucune|sans|sin|nunca|ningún|ninguna)\b|n['’]t\b|\bn['’]/iu;

/** Whether a stretch of text negates what it says ("is not listed", "no longer supports", "n'est pas"). */
export function isNegated(text: string): boolean {
  const cleaned = text.replace(/\bnot only\b|\bno doubt\b|\bnicht nur\b|\bnon seulement\b/giu, "");
  return NEGATIONS.test(cleaned);
}
