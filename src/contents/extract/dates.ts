/**
 * Publication dates as pages write them, turned into ISO 8601 instants.
 * A date-time without an offset is read as UTC: the page's zone is unknown,
 * and the server's own zone must not leak into the result.
 */

const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:T?(\d{2})(\d{2})(\d{2})?)?(Z)?$/;
/** 31.12.2020, 31/12/2020: day first, as everywhere but the US writes with dots. */
const DOTTED = /^(\d{1,2})\.\s*(\d{1,2})\.\s*(\d{4})(?:,?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

const MIN_YEAR = 1990;
const MAX_YEAR = 2100;

function build(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millis = 0, offset?: string): string | null {
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return null;
  let time = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (offset && offset.toUpperCase() !== "Z") {
    const sign = offset.startsWith("-") ? -1 : 1;
    const digits = offset.slice(1).replace(":", "");
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0)) * 60_000;
  }
  const date = new Date(time);
  // Date.UTC rolls 31 February over into March; such a date was not a date.
  if (!offset && date.getUTCDate() !== day) return null;
  return Number.isNaN(time) ? null : date.toISOString();
}

/** An ISO 8601 string for a date found in metadata, or null when it is not a plausible date. */
export function normaliseDate(value: string | null | undefined): string | null {
  const text = value?.trim();
  if (!text || text.length > 64) return null;
  let m = text.match(ISO);
  if (m) {
    const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, "0")) : 0;
    return build(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), millis, m[8]);
  }
  m = text.match(COMPACT);
  if (m) return build(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), 0, m[7]);
  m = text.match(DOTTED);
  if (m) return build(Number(m[3]), Number(m[2]), Number(m[1]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  // RFC 2822 and English long forms ("Tue, 10 Mar 2020 10:00:00 GMT", "March 10, 2020"); no offset means UTC.
  if (/[a-z]{3}/i.test(text)) {
    const hasZone = /(?:gmt|utc|[+-]\d{2}:?\d{2}|\b[ecmp][sd]t\b|\bz\b)/i.test(text);
    const parsed = Date.parse(hasZone ? text : `${text} UTC`);
    if (!Number.isNaN(parsed)) {
      const year = new Date(parsed).getUTCFullYear();
      if (year >= MIN_YEAR && year <= MAX_YEAR) return new Date(parsed).toISOString();
    }
  }
  return null;
}
