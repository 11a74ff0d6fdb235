/**
 * A monitor's schedule: `{"every_minutes": N}` or `{"cron": "..."}` (five
 * fields, or six with seconds first, or an alias such as @daily; UTC),
 * checked against the operator's shortest interval
 * (MONITOR_MIN_EVERY_MINUTES), and the time of its next run.
 */
import { CronExpressionParser } from "cron-parser";
import { invalid } from "../errors.ts";

export type Schedule = { every_minutes: number } | { cron: string };

/** Occurrences of a cron looked at for its shortest gap: enough to see a daily pair of close firings over months. */
const CRON_SAMPLES = 200;
export const CRON_MAX = 128;

/** The schedule as given, checked: a 422 naming what is wrong with it. */
export function checkSchedule(raw: unknown, minEveryMinutes: number, loc: (string | number)[] = ["body", "schedule"]): Schedule {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw invalid(loc, 'schedule must be {"every_minutes": N} or {"cron": "..."}', "dict_type");
  const fields = Object.keys(raw);
  if (fields.length !== 1 || (fields[0] !== "every_minutes" && fields[0] !== "cron"))
    throw invalid(loc, 'schedule must be exactly one of {"every_minutes": N} or {"cron": "..."}', "value_error");
  const schedule = raw as Record<string, unknown>;
  if ("every_minutes" in schedule) {
    const every = schedule.every_minutes;
    if (typeof every !== "number" || !Number.isFinite(every))
      throw invalid([...loc, "every_minutes"], "every_minutes must be a number", "float_type");
    if (every < minEveryMinutes)
      throw invalid([...loc, "every_minutes"], `every_minutes must be at least ${minEveryMinutes}`, "greater_than_equal");
    if (every > 525_600) throw invalid([...loc, "every_minutes"], "every_minutes must be at most 525600 (a year)", "less_than_equal");
    return { every_minutes: every };
  }
  const cron = schedule.cron;
  if (typeof cron !== "string") throw invalid([...loc, "cron"], "cron must be a string", "string_type");
  checkCron(cron.trim(), minEveryMinutes, [...loc, "cron"]);
  return { cron: cron.trim() };
}

function checkCron(cron: string, minEveryMinutes: number, loc: (string | number)[]): void {
  if (cron.length > CRON_MAX) throw invalid(loc, `cron must be at most ${CRON_MAX} characters`, "string_too_long");
  const fields = cron.split(/\s+/).filter(Boolean).length;
  // cron-parser reads a short expression as though its missing fields were `*`: "1 2 3" is not what anyone meant.
  if (!cron.startsWith("@") && fields !== 5 && fields !== 6)
    throw invalid(loc, `cron must have 5 fields (minute hour day month weekday), or 6 with seconds first; it has ${fields}`, "value_error");
  let times: number[];
  try {
    const expression = CronExpressionParser.parse(cron, { currentDate: new Date(), tz: "UTC" });
    times = [];
    for (let i = 0; i < CRON_SAMPLES && expression.hasNext(); i++) times.push(expression.next().getTime());
  } catch (error) {
    throw invalid(loc, `cron is not valid: ${(error as Error).message}`, "value_error");
  }
  if (times.length === 0) throw invalid(loc, "cron never fires", "value_error");
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i]! - times[i - 1]!);
  if (shortest < minEveryMinutes * 60_000)
    throw invalid(loc, `cron fires more often than every ${minEveryMinutes} minutes, the shortest schedule allowed`, "value_error");
}

/**
 * When a run is next due after `now`: every_minutes after it; a cron's next occurrence. `first` is the run made
 * with the monitor: an interval's first run is at once (its answer is what later runs are compared with), a cron's
 * at its first occurrence.
 */
export function nextRunAt(schedule: Schedule, now: Date, first = false): Date {
  if ("every_minutes" in schedule) return first ? now : new Date(now.getTime() + schedule.every_minutes * 60_000);
  const expression = CronExpressionParser.parse(schedule.cron, { currentDate: now, tz: "UTC" });
  return expression.next().toDate();
}
