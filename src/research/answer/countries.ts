/**
 * Country names for fields that ask for a country: the runtime's own list
 * (Intl.DisplayNames over every two-letter region code), so "Sudan" or
 * "United States" in a sentence is known for a country without a gazetteer
 * of our own.
 */
import type { Span } from "./values.ts";

let names: RegExp | null = null;

function countryPattern(): RegExp {
  if (names) return names;
  const display = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
  const found = new Set<string>();
  const A = "A".charCodeAt(0);
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(A + i, A + j);
      const name = display.of(code);
      // Drop qualifiers ("Myanmar (Burma)", "Hong Kong SAR China") down to the name people write.
      if (!name || name === code) continue;
      const plain = name.replace(/\s*\(.*\)$/, "").replace(/ SAR China$/, "");
      found.add(plain);
      // CLDR writes "Antigua & Barbuda"; prose writes "and".
      if (plain.includes(" & ")) found.add(plain.replace(" & ", " and "));
    }
  }
  for (const alias of ["USA", "US", "U.S.", "UK", "Britain", "Great Britain", "England", "Scotland", "Wales", "Holland", "America"])
    found.add(alias);
  const escaped = [...found].sort((a, b) => b.length - a.length).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  names = new RegExp(`(?<![\\p{L}])(?:${escaped.join("|")})(?![\\p{L}])`, "gu");
  return names;
}

/** The country names in a text, as verbatim spans. */
export function countrySpans(text: string): Span[] {
  return [...text.matchAll(countryPattern())].map((m) => ({ text: m[0], index: m.index, end: m.index + m[0].length }));
}
