/**
 * Boilerplate recognisable by its words rather than its markup: the
 * "Read also:" lines that newsrooms splice between paragraphs, photo credits,
 * and the subscription and copyright fine print under articles. Each pattern
 * only ever applies to a short block, so prose that happens to start the
 * same way survives. Covers the languages of the evaluation set and the
 * major European ones.
 */

/** "Read also", "More on this", "You might also like" and their siblings. */
const READ_ALSO = new RegExp(
  "^(?:" +
    [
      "read (?:also|more|next|on)",
      "see also",
      "related(?: (?:articles?|stories|coverage|posts?|content|reading))?",
      "more (?:on this|from|about|stories|news|to read)",
      "recommended(?: for you)?",
      "you (?:may|might|could) (?:also )?(?:like|enjoy|be interested)",
      "also (?:read|see)",
      "further reading",
      "most (?:read|popular|viewed)",
      "trending",
      "don'?t miss",
      "lesen sie (?:auch|mehr|hier|weiter)",
      "auch (?:interessant|lesen(?:swert)?)",
      "mehr (?:zum thema|dazu|themen|artikel|infos?|lesen|aus)",
      "weitere (?:artikel|beiträge|informationen|infos|themen|links|news|nachrichten|tourentipps)",
      "weiterführende (?:links?|informationen|artikel)",
      "(?:das|dies) könnte (?:sie|dich) (?:auch )?interessieren",
      "schon gelesen",
      "zum weiterlesen",
      "weiterlesen",
      "empfohlene (?:beiträge|artikel)",
      "meist(?:gelesen|diskutiert|geklickt)e?",
      "am meisten gelesen",
      "passend (?:dazu|zum thema)",
      "verwandte (?:artikel|themen|beiträge)",
      "ähnliche (?:beiträge|artikel)",
      "siehe auch",
      "lies auch",
      "top[- ]?themen",
      "(?:à )?lire (?:aussi|également|la suite)",
      "vous aimerez (?:aussi|également)",
      "voir aussi",
      "sur le même sujet",
      "articles? (?:les plus lus|similaires|liés)",
      "à voir aussi",
      "découvrez aussi",
      "lea (?:también|más|además)",
      "(?:le|te) puede interesar",
      "puedes ver",
      "mira",
      "vea (?:también|además)",
      "ver también",
      "noticias relacionadas",
      "lo más (?:leído|visto)",
      "también te puede interesar",
      "leia (?:também|mais)",
      "veja (?:também|mais)",
      "leggi (?:anche|pure)",
      "potrebbe interessarti",
      "czytaj (?:też|także|również|więcej)",
      "zobacz (?:też|także|również)",
      "dowiedz się więcej",
      "polecamy",
      "lees (?:ook|meer)",
      "meer (?:lezen|over)",
    ].join("|") +
    ")(?![\\p{L}\\p{N}])\\s*[:.!?»>…-]*",
  "iu",
);

/** Photo and source credits: "Foto: X", "Photo by X", "© X", "X/Getty Images". */
const CREDIT =
  /^(?:\(?(?:fotos?|photos?(?:graph)?(?: by)?|bild(?:er|quelle|nachweis)?|image(?: credit)?s?|credits?|quelle|source|fuente|titelbild|beitragsbild|illustration|grafik|foto(?:grafía)?|zdjęcie|fot\.|crédits?(?: photos?)?|copyright)\s*[:©/]|©|\(c\)\s)/iu;
const CREDIT_AGENCIES =
  /(?:getty images|shutterstock|istock(?:photo)?|dpa|afp|reuters|imago|picture[- ]alliance|keystone|unsplash|pixabay|epa|ap photo|wenn\.com|bestimage|adobe ?stock)\b/i;

/** Fine print under articles: subscription pitches, copyright notices, "follow us", app downloads. */
const FINE_PRINT =
  /^(?:©|copyright\b|all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos|(?:subscribe|sign up|register)\b.{0,60}\b(?:newsletter|now|today|free|to)\b|follow (?:us|the \w+|@)|download (?:our|the) \w* ?apps?|abonnieren sie|jetzt (?:abonnieren|anmelden|registrieren)|melden sie sich|newsletter\b|unterstütze[n]? (?:sie )?(?:uns|unsere)|support (?:our|us)\b|this (?:article|story) (?:is|was) (?:the copyrighted|copyright|first published|originally published)|written permission|dieser (?:text|beitrag|artikel) (?:wurde|ist|erschien) (?:zuerst|ursprünglich|veröffentlicht)|zapraszamy|suscríbete|hazte (?:miembro|socio))/iu;

const normalise = (text: string) => text.replace(/\s+/g, " ").trim();
// Note: JavaScript's \b only knows ASCII letters, so word ends are written (?![\p{L}\p{N}]) where a
// pattern can end in "ż" or "é".

/** The pieces a dateline is made of, in the languages above: dates, times, month and weekday names, and their labels. */
const DATELINE_PARTS = new RegExp(
  [
    "\\d{1,4}(?:[./-]\\d{1,2}){1,2}\\.?",
    "\\d{1,2}:\\d{2}(?::\\d{2})?\\s*(?:[ap]\\.?m\\.?)?",
    "\\d{1,4}(?:st|nd|rd|th|er|e|\\.)?",
    "jan(?:uary|uar|vier|eiro)?|feb(?:ruary|ruar|rero|braio)?|févr(?:ier)?|mar(?:ch|s|zo|ço)?|märz|apr(?:il|ile)?|avril|abril|ma[iy]|mai|mayo|maggio|jun[ei]?|juin|junio|giugno|jul[iy]?|juillet|julio|luglio|aug(?:ust)?|août|agosto|sep(?:t|tember|tembre|tiembre|tembro)?|settembre|o[ck]t(?:ober|obre|ubre)?|ottobre|nov(?:ember|embre|iembre|embro)?|de[cz](?:ember|embre|iembre|embro)?|dicembre|enero|gennaio",
    "stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września|października|listopada|grudnia",
    "mon(?:day)?|tue(?:sday)?|wed(?:nesday)?|thu(?:rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|lunes|martes|miércoles|jueves|viernes|sábado|domingo",
    "published|updated|posted|modified|last|created|date|release|on|at|am|um|uhr|erstellt|aktualisiert|veröffentlicht|veröffentlichung|zuletzt|geändert|stand|datum|publié|mis à jour|le|publicado|actualizado|el|de|del|pubblicato|aggiornato|il|opublikowano|aktualizacja|publikacja|gepubliceerd|bijgewerkt|op|utc|gmt|cet|cest|mez|est|pst",
  ].join("|"),
  "giu",
);

/** A block that is only a date or time, with at most its label ("Updated: 3 March 2020, 14:05"). */
export function isDateline(text: string): boolean {
  const line = normalise(text);
  // A bare number ("2020" over a timeline section) is a heading, not a dateline.
  if (line.length > 80 || !/\d/.test(line) || /^\d+$/.test(line)) return false;
  const rest = line.replace(DATELINE_PARTS, " ").replace(/[\s\p{P}\p{S}]+/gu, "");
  return rest.length <= 2;
}

/** A short block that announces links to other articles. */
export function isReadAlso(text: string, hasLink: boolean): boolean {
  const line = normalise(text);
  if (line.length > 200 || !READ_ALSO.test(line)) return false;
  // "Mira cómo..." is prose; "MIRA: title" with a link, or a bare label, is a promo.
  return hasLink || line.length < 60;
}

export function isCredit(text: string): boolean {
  const line = normalise(text);
  if (line.length > 150) return false;
  return CREDIT.test(line) || (line.length < 80 && CREDIT_AGENCIES.test(line) && /[/|©:]|\bvia\b/i.test(line));
}

export function isFinePrint(text: string): boolean {
  const line = normalise(text);
  return line.length <= 300 && FINE_PRINT.test(line);
}
