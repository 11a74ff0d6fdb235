/**
 * What two calls have in common when they are one job split across
 * accounts. A script filling a template sends "price of AAPL", "price of
 * MSFT", … from every account: the prompt's template (numbers, quoted
 * strings and names or tickers replaced by placeholders, case, spacing and
 * punctuation dropped) with the output_format's fields is the work; for a
 * designed or published endpoint, the stub called is. Different questions
 * from the same office stay different work. Only a keyed hash of this text
 * is ever stored (keyed-hash.ts), never the prompt.
 *
 * The address a call is counted under is its client address, except that an
 * IPv6 address counts as its /64: one subscriber's line, whose 2^64
 * addresses are free for its owner to rotate through.
 */
import { isIPv6 } from "node:net";

/** A run's work, as research/run/hold.ts describes it (RunWork). */
export type Work = { prompt: string; fields: readonly string[] } | { endpoint: string };

/** Quoted strings, words (with inner apostrophes and hyphens) and sentence ends; everything else separates. */
const TOKENS =
  /(?<quoted>"[^"]*"|“[^”]*”|«[^»]*»|‘[^’]*’|(?<![\p{L}\p{N}])'[^']*'(?![\p{L}\p{N}]))|(?<end>[.!?]+)|[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
// Braces never survive tokenising, so a placeholder cannot be mistaken for a word.
const NAME = "{name}";
const NUMBER = "{number}";
const QUOTE = "{quote}";

/** The template of a prompt: what stays when what a script would vary is replaced by placeholders. */
export function promptTemplate(prompt: string): string {
  const out: string[] = [];
  let sentenceStart = true;
  for (const match of prompt.matchAll(TOKENS)) {
    if (match.groups?.end) {
      sentenceStart = true;
      continue;
    }
    let shown: string;
    const word = match[0].replace(/['’]s$/u, "");
    if (match.groups?.quoted) shown = QUOTE;
    else if (/\p{N}/u.test(word)) shown = NUMBER;
    // Tickers and acronyms anywhere; capitalised names except the word that starts a sentence.
    else if (/^\p{Lu}{2,}$/u.test(word) || (!sentenceStart && /^\p{Lu}/u.test(word))) shown = NAME;
    else shown = word.toLowerCase();
    sentenceStart = false;
    // "Bank of America" is two names, "Apple Inc" one: runs of one placeholder count once.
    if (shown !== QUOTE && shown === out.at(-1) && shown.startsWith("{")) continue;
    out.push(shown);
  }
  return out.join(" ");
}

/** The text a work fingerprint hashes. */
export function workText(work: Work): string {
  if ("endpoint" in work) return `endpoint\n${work.endpoint}`;
  return `search\n${promptTemplate(work.prompt)}\n${[...work.fields].sort().join(",")}`;
}

/** The address a call is counted under: IPv4 as it is, IPv6 as its /64. */
export function addressKey(address: string): string {
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, each without leading zeros (an embedded IPv4 tail becomes two groups). */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase().split("%", 1)[0]!;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const middle = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}
