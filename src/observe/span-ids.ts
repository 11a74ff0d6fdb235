/**
 * Random trace and span ids, as lowercase hex, from the ids kernel's pooled
 * CSPRNG (W3C asks that a trace id's right half be random: all of it is).
 * A new trace's bytes are drawn before its text: the sampler decides on them
 * (sampler.ts reads the same 52 bits from either), so a trace it leaves out
 * costs no hex unless a call passes it on. Uint8Array's toHex (native) makes
 * the text in one flat piece: half the time of writing it a digit at a time.
 */
import { randomByte } from "../ids.ts";

/** 16 random bytes, never all zero (the invalid trace id): a new trace's id before it is text. */
export function newTraceBytes(): Uint8Array {
  const bytes = new Uint8Array(16);
  let zero = true;
  for (let i = 0; i < 16; i++) if ((bytes[i] = randomByte())) zero = false;
  // All zeros is the invalid id: vanishingly rare, and drawn again.
  return zero ? newTraceBytes() : bytes;
}

export const hexOf = (bytes: Uint8Array): string => (bytes as Uint8Array & { toHex(): string }).toHex();

const SPAN = new Uint8Array(8);

/**
 * A span id's 8 bytes, never all zero, drawn into `into`: by default one buffer reused by every call (read them before
 * the next), for a span written at once.
 */
export function newSpanIdBytes(into: Uint8Array = SPAN): Uint8Array {
  let zero = true;
  for (let i = 0; i < 8; i++) if ((into[i] = randomByte())) zero = false;
  return zero ? newSpanIdBytes(into) : into;
}

export function newSpanId(): string {
  return hexOf(newSpanIdBytes());
}
