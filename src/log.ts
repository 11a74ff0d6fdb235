/**
 * Structured JSON logs, one object per line. Every string passes through
 * `redact` first: API keys, bearer tokens and URL passwords never reach a log
 * line, even when a caller pastes one where it does not belong. Errors are
 * logged by name and message only: no stack traces.
 */
import { writeSync } from "node:fs";
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
  // Not inside a word: a task's id (task_…) holds "sk_" too, and is no secret.
  [/(?<![A-Za-z0-9])sk_[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*/g, "sk_[redacted]"],
  [/(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, "$1 [redacted]"],
  [/(\w+:\/\/[^\s:/@]*):[^\s@/]*@/g, "$1:[redacted]@"],
];

// Every secret pattern above contains one of these: most strings (paths, ids, messages) skip the replaces.
const MAYBE_SECRET = /sk_|bearer|basic|:\/\//i;

export function redact(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
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

/**
 * Standard output, a batch at a time: under load a write per line cost a
 * tenth of the server's CPU. Lines logged while the event loop is busy are
 * joined and written when it turns (setImmediate), or at once when 64 KiB
 * wait; what is still pending at exit is written synchronously.
 */
let pendingLines: string[] = [];
let pendingBytes = 0;
let flushScheduled = false;
const FLUSH_BYTES = 64 * 1024;

export function flushLogs(): void {
  flushScheduled = false;
  if (pendingLines.length === 0) return;
  const text = pendingLines.join("");
  pendingLines = [];
  pendingBytes = 0;
  process.stdout.write(text);
}

process.on("exit", () => {
  if (pendingLines.length) writeSync(1, pendingLines.join(""));
});

export const stdoutSink: LogSink = (line) => {
  pendingLines.push(`${line}\n`);
  pendingBytes += line.length + 1;
  if (pendingBytes >= FLUSH_BYTES) flushLogs();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushLogs);
  }
};

// Log lines share their millisecond often under load: the timestamp is formatted once per millisecond.
let stampedAt = -1;
let stamp = "";
function timestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

// A field's `,"key":` is written once per key: the keys are the code's own few names (a bound keeps a stray one cheap).
const keyTexts = new Map<string, string>();
function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `,${JSON.stringify(key)}:`;
    if (keyTexts.size < 1_000) keyTexts.set(key, text);
  }
  return text;
}

/** `,"key":value` for one field, cleaned (secrets redacted) the way clean() does; nothing for undefined. */
function member(key: string, value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "number") return keyText(key) + (Number.isFinite(value) ? String(value) : "null");
  const text = typeof value === "string" ? redact(value) : typeof value === "object" && value !== null ? clean(value) : value;
  return keyText(key) + JSON.stringify(text);
}

/**
 * `origin`: which process wrote the line (a worker's number, src/ops/supervisor.ts), written last on every line, so
 * a reader matching a line's leading fields (`"msg":"listening","url":...`) reads it alike with or without it.
 */
export function createLogger(options: { level: LogLevelName; sink?: LogSink; base?: LogFields; origin?: LogFields }): Logger {
  const threshold = RANK[options.level];
  const sink = options.sink ?? stdoutSink;
  const base = options.base ?? {};
  // Built by hand, field by field, rather than merged into an object and stringified: one line per request at info.
  const baseMembers = Object.entries(base).map(([key, value]) => [key, member(key, value)] as const);
  const originText = Object.entries(options.origin ?? {})
    .map(([key, value]) => member(key, value))
    .join("");
  const write = (level: Exclude<LogLevelName, "silent">, msg: string, fields?: LogFields) => {
    if (RANK[level] < threshold) return;
    let line = `{"time":"${timestamp()}","level":"${level}","msg":${JSON.stringify(redact(msg))}`;
    for (const [key, text] of baseMembers) if (!fields || !(key in fields)) line += text;
    if (fields) for (const key in fields) line += member(key, fields[key]);
    sink(`${line}${originText}}`);
  };
  return {
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
    child: (fields) => createLogger({ level: options.level, sink, base: { ...base, ...fields }, origin: options.origin }),
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
