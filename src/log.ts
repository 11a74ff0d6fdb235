/**
 * Structured JSON logs, one object per line. Every string passes through
 * `redact` first: API keys, bearer tokens and URL passwords never reach a log
 * line, even when a caller pastes one where it does not belong. Errors are
 * logged by name and message only: no stack traces.
 */
import { type Clock, systemClock } from "./clock.ts";
import type { LogLevelName } from "./config.ts";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevelName, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const SECRET_PATTERNS: [RegExp, string][] = [
  [/sk_[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*/g, "sk_[redacted]"],
  [/(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, "$1 [redacted]"],
  [/(\w+:\/\/[^\s:/@]*):[^\s@/]*@/g, "$1:[redacted]@"],
];

export function redact(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

function clean(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redact(value);
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: redact(value.message), ...(code !== undefined ? { code: String(code) } : {}) };
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > 4) return "[nested]";
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => clean(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = clean(v, depth + 1);
  return out;
}

export type LogSink = (line: string) => void;

export const stdoutSink: LogSink = (line) => {
  process.stdout.write(`${line}\n`);
};

export function createLogger(options: { level: LogLevelName; sink?: LogSink; base?: LogFields }): Logger {
  const threshold = RANK[options.level];
  const sink = options.sink ?? stdoutSink;
  const base = options.base ?? {};
  const write = (level: Exclude<LogLevelName, "silent">, msg: string, fields?: LogFields) => {
    if (RANK[level] < threshold) return;
    const record = {
      time: new Date().toISOString(),
      level,
      msg: redact(msg),
      ...(clean(base) as LogFields),
      ...(clean(fields ?? {}) as LogFields),
    };
    sink(JSON.stringify(record));
  };
  return {
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
    child: (fields) => createLogger({ level: options.level, sink, base: { ...base, ...fields } }),
  };
}

/**
 * A warning for a failure that can repeat on every request (a background
 * write refused while the database flaps): logged at most once per interval
 * per message, with how many were skipped, so it is never silent and never a flood.
 */
export function throttledWarn(log: Logger, intervalMs = 10_000, clock: Clock = systemClock): (msg: string, fields?: LogFields) => void {
  return throttledLog(log, "warn", intervalMs, clock);
}

/** throttledWarn at any level: a state that holds for a while under load (runs queueing) is said once per interval. */
export function throttledLog(
  log: Logger,
  level: Exclude<LogLevelName, "silent">,
  intervalMs = 10_000,
  clock: Clock = systemClock,
): (msg: string, fields?: LogFields) => void {
  const last = new Map<string, { at: number; skipped: number }>();
  return (msg, fields) => {
    const now = clock.now();
    const seen = last.get(msg);
    if (seen && now - seen.at < intervalMs) {
      seen.skipped++;
      return;
    }
    log[level](msg, { ...fields, ...(seen?.skipped ? { skipped: seen.skipped } : {}) });
    last.set(msg, { at: now, skipped: 0 });
  };
}
