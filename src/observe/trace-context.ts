/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the one reader
 * of an incoming `traceparent` and `tracestate`, used with tracing on and
 * off alike, and the writer of the `traceparent` a call under a span sends.
 * A header that breaks the rules is as if it were not sent: the request
 * starts a trace of its own.
 */
export interface TraceContext {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const VERSION_00 = /^00-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;
// A later version may add fields after the flags; what this one knows is read as version 00's, and ff is invalid.
const LATER_VERSION = /^(?!ff)[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(?:-.*)?$/;
const ZERO_TRACE = "00000000000000000000000000000000";
const ZERO_SPAN = "0000000000000000";

/** The caller's span, from a `traceparent` header; undefined when there is none or it is not valid. */
export function parseTraceparent(header: string | null | undefined): TraceContext | undefined {
  if (!header || header.length > 512) return undefined;
  const text = header.trim();
  const match = text.startsWith("00-") ? VERSION_00.exec(text) : LATER_VERSION.exec(text);
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The trace id of a valid `traceparent`, else undefined. */
export function traceIdOf(header: string | null | undefined): string | undefined {
  return parseTraceparent(header)?.traceId;
}

export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? "01" : "00"}`;
}

// Up to 32 list members of key=value, printable ASCII without commas and equals signs in the value (W3C's rules, loosely).
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/** A `tracestate` worth keeping with the trace: bounded and printable, else dropped (as the standard allows). */
export function parseTracestate(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const text = header.trim();
  return TRACESTATE.test(text) && text.split(",").length <= 32 ? text : undefined;
}
