/** How a monitor reads on the dashboard: its address, what it asks, its schedule in words, when a run was made. */
import { formatCount } from "../../format.ts";
import type { Monitor, MonitorSchedule } from "../../model.ts";
import { BASE } from "../../router.tsx";

export function monitorHref(id: string): string {
  return `${BASE}/monitors/${encodeURIComponent(id)}`;
}

/** What each run asks: a search's prompt, or the endpoint it calls. */
export function askedOf(monitor: Pick<Monitor, "kind" | "endpoint" | "request">): string {
  if (monitor.kind === "search") return typeof monitor.request.prompt === "string" ? monitor.request.prompt : "A search";
  return `${monitor.kind === "published" ? "Published" : "Endpoint"} ${monitor.endpoint ?? ""}`.trim();
}

const plural = (n: number, unit: string) => (n === 1 ? `Every ${unit}` : `Every ${formatCount(n)} ${unit}s`);

/** "Every 15 minutes", "Every 2 hours", "Every day", "Cron 0 9 * * 1 (UTC)". */
export function scheduleWords(schedule: MonitorSchedule): string {
  if ("cron" in schedule) return `Cron ${schedule.cron} (UTC)`;
  const minutes = schedule.every_minutes;
  if (minutes < 1) return plural(Math.round(minutes * 60), "second");
  if (minutes % 1440 === 0) return plural(minutes / 1440, "day");
  if (minutes % 60 === 0) return plural(minutes / 60, "hour");
  return plural(minutes, "minute");
}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * When a task was made, read from its id: the service's ids start with their creation time in milliseconds
 * (10 characters of Crockford base32, src/ids.ts). A monitor names its last run by id only.
 */
export function timeOfId(id: string): string | null {
  const time = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11);
  if (time.length !== 10) return null;
  let ms = 0;
  for (const char of time) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return null;
    ms = ms * 32 + digit;
  }
  return new Date(ms).toISOString();
}
