/** How numbers, money and times read on every page (the browser's locale). */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });
const count = new Intl.NumberFormat();
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "always" });

export function formatTime(iso: string | null | undefined, never = "Never"): string {
  if (!iso) return never;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** Usage days are UTC calendar dates ("2026-11-22"); shown as that date, not shifted to local time. */
export function formatDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : dateOnly.format(date);
}

export function formatCount(n: number): string {
  return count.format(n);
}

/** The smallest amount the service counts (a micro-dollar): digits past it would only show rounding. */
const MAX_FRACTION_DIGITS = 6;
const moneyFormats = new Map<number, Intl.NumberFormat>();

/**
 * Money, one way on every page: zero and amounts of a dollar or more in cents ($0.00, $12.50); a nonzero amount
 * under a dollar to four significant digits ($0.2717, $0.0027, $0.000123), so a call's
 * fraction of a cent never reads $0.00, and the same amount reads the same wherever it is shown.
 */
export function formatMoney(dollars: number): string {
  const size = Math.abs(dollars);
  const digits = size === 0 || size >= 1 ? 2 : Math.min(MAX_FRACTION_DIGITS, Math.max(2, Math.ceil(-Math.log10(size)) + 3));
  let format = moneyFormats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: "USD",
      minimumFractionDigits: 2,
      maximumFractionDigits: digits,
    });
    moneyFormats.set(digits, format);
  }
  // Below a micro-dollar (nothing the service bills) would round to $0.00: say it is less than the smallest shown.
  if (size > 0 && size < 0.5 * 10 ** -MAX_FRACTION_DIGITS) return `< ${format.format(Math.sign(dollars) * 10 ** -MAX_FRACTION_DIGITS)}`;
  return format.format(dollars);
}

const tenths = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A duration in milliseconds as it reads best: "850 ms", "12.3 s", "2 min 5 s"; null (not recorded) as a dash. */
export function formatMs(ms: number | null): string {
  if (ms === null) return "–";
  if (ms < 1000) return `${count.format(Math.round(ms))} ms`;
  if (ms < 60_000) return `${tenths.format(ms / 1000)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** How long until a future time, in the largest unit that reads well: "in 12 minutes", "in 5 hours", "in 30 days". */
export function formatUntil(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return relative.format(Math.max(1, minutes), "minute");
  const hours = Math.round(ms / 3_600_000);
  if (hours < 48) return relative.format(hours, "hour");
  return relative.format(Math.round(ms / 86_400_000), "day");
}
