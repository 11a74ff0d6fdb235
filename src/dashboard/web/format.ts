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

/** Balances read in cents; per-call costs are fractions of a cent, so they keep more digits. */
export function formatMoney(dollars: number, precise = false): string {
  return new Intl.NumberFormat(undefined, {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: precise ? 6 : 2,
  }).format(dollars);
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
