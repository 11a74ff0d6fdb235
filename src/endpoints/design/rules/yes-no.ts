/**
 * The name of a yes/no field, from the words after "whether", "is it",
 * "does it": the auxiliary becomes the name's verb ("has_free_tier",
 * "is_publicly_traded", "offers_api"), and a verdict someone else gives
 * ("whether analysts rate it a buy") becomes the verdict itself
 * ("is_buy_rating"), since the caller asks what the verdict is, not who gave it.
 */

const ARTICLES = new Set("it they he she the a an this that these those its their".split(" "));
export const AUX = new Map(
  Object.entries({
    is: "is",
    are: "is",
    was: "is",
    were: "is",
    has: "has",
    have: "has",
    had: "has",
    can: "can",
    could: "can",
    does: "",
    do: "",
    did: "",
  }),
);
// What the subject is called when someone else is the one acting on it.
const OBJECTS = new Set(["it", "them"]);
const PERSONAL = new Set("it they he she we you i".split(" "));
// Verdicts named by their noun: "rate it a buy" gives a buy rating; "consider it a classic" just is one.
const VERDICT_NOUNS = new Map(
  Object.entries({ rate: "rating", rank: "ranking", grade: "grade", score: "score", classify: "classification" }),
);

/** "rates" → "rate", "classifies" → "classify": the verb as a dictionary has it. */
function base(verb: string): string {
  if (/ies$/.test(verb)) return `${verb.slice(0, -3)}y`;
  return /[^s]s$/.test(verb) ? verb.slice(0, -1) : verb;
}

/** "recommend" → "recommended": "whether critics recommend it" asks whether it is recommended. */
function participle(verb: string): string {
  if (/ed$/.test(verb)) return verb;
  const root = base(verb);
  return /e$/.test(root) ? `${root}d` : /[^aeiou]y$/.test(root) ? `${root.slice(0, -1)}ied` : `${root}ed`;
}

/** "analysts rate it (or the stock) a buy" → is + buy rating; null when no one else gives a verdict on the subject. */
function verdict(words: string[], subject: Set<string>): { verb: string; words: string[] } | null {
  const object = words.findIndex((w, i) => i >= 2 && (OBJECTS.has(w) || subject.has(w)));
  if (object < 0 || PERSONAL.has(words[0]!)) return null;
  const judged = words
    .slice(0, object)
    .filter((w) => !ARTICLES.has(w))
    .pop();
  if (!judged || judged === words[0]) return null;
  const rest = words.slice(object + 1).filter((w) => !ARTICLES.has(w) && w !== "as" && !subject.has(w));
  if (!rest.length) return { verb: "is", words: [participle(judged)] };
  const noun = VERDICT_NOUNS.get(base(judged));
  return { verb: "is", words: noun ? [...rest, noun] : rest };
}

/** The verb and the words of a yes/no field's name, from the words after the question word. */
export function yesNoName(words: string[], subject: Set<string>): { verb: string; words: string[] } {
  const aux = words.findIndex((w) => AUX.has(w));
  if (aux < 0) {
    const judged = verdict(words, subject);
    if (judged) return judged;
  }
  const content = words.filter((w, i) => i > aux && !ARTICLES.has(w) && !subject.has(w));
  const verb = aux >= 0 ? AUX.get(words[aux]!)! : /s$/.test(content[0] ?? "") ? "" : "is";
  if (aux < 0) return { verb, words };
  // "whether breakfast is included" is about breakfast: a noun before the verb, unless it is the subject, stays.
  const before = words.slice(0, aux).filter((w) => !ARTICLES.has(w) && !subject.has(w));
  // "does it have a free tier" → has_free_tier; "does it offer an API" → offers_api.
  if (verb === "" && content[0])
    return {
      verb: content[0] === "have" ? "has" : content[0].endsWith("s") ? content[0] : `${content[0]}s`,
      words: [...before, ...content.slice(1)],
    };
  return { verb, words: [...before, ...content] };
}
