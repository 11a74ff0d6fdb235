/**
 * A value asked over a period ("the forecast for the next 3 days", "its
 * revenue for the last 5 years") is a series: a list with one row per day,
 * hour or year, keyed by that period, so each value comes with its date.
 */
import type { OutputShape } from "../../../research/output-format.ts";
import type { Field } from "./field.ts";
import { plural, scalarType, type Scalar } from "./words.ts";

export interface Period {
  /** The row's key and its type: date, time, week, month, quarter or year. */
  key: [string, Scalar];
  start: number;
  end: number;
}

const COUNT = "\\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|few|several|couple of";
const SERIES_NOUNS = "forecast|outlook|history|trend|schedule|itinerary|timeline";
const SERIES = new RegExp(`^(?:${SERIES_NOUNS})$`);
const PERIOD = new RegExp(
  `(?<![\\p{L}])(?:for|over|during|in|across|within) (?:the )?(?:next|last|past|coming|previous|following|upcoming) (?:(?:${COUNT}) )?(hours?|days?|weeks?|months?|quarters?|years?)(?![\\p{L}])` +
    // "the 3-day forecast", "a 12-month price history": the period written before a noun that is a series by
    // nature; a "52-week high" or a "2-year warranty" is one value.
    `|(?<![\\p{L}\\p{N}])(?:${COUNT})[- ](hour|day|week|month|quarter|year)(?= (?:[\\p{L}]+ ){0,2}(?:${SERIES_NOUNS})(?![\\p{L}]))`,
  "u",
);
const KEYS = new Map<string, [string, Scalar]>([
  ["hour", ["time", "string"]],
  ["day", ["date", "string"]],
  ["week", ["week", "string"]],
  ["month", ["month", "string"]],
  ["quarter", ["quarter", "string"]],
  ["year", ["year", "integer"]],
]);

/** The period an item is asked over, where its words say one. */
export function periodOf(text: string): Period | null {
  const m = PERIOD.exec(text);
  if (!m) return null;
  return { key: KEYS.get((m[1] ?? m[2])!.replace(/s$/, ""))!, start: m.index, end: m.index + m[0].length };
}

/**
 * One value as a series. A name that already says series keeps it, and its rows hold what it is a
 * series of (price_history: [{month, price}], weather_forecast: [{date, weather}]); a measured value
 * keeps its name in each row and the list is its plural (daily_closing_prices: [{date,
 * daily_closing_price}]); anything else names the list as written.
 */
export function asSeries(field: Field, period: Period): Field {
  const words = field.name.split("_");
  const series = SERIES.test(words[words.length - 1]!);
  const of = series && words.length > 1 ? words.slice(0, -1) : null;
  const value = of ? scalarType(of) : (field.shape as Scalar);
  const measured = value === "number" || value === "integer";
  const row: Record<string, OutputShape> = { [period.key[0]]: period.key[1], [of ? of.join("_") : field.name]: value };
  const name = measured && !series ? plural(field.name) : field.name;
  return { ...field, name, shape: [row], collection: true, key: period.key };
}
