/**
 * Random trace and span ids, as lowercase hex, from the ids kernel's pooled
 * CSPRNG (W3C asks that a trace id's right half be random: all of it is).
 * Built from character codes in one piece, as ids.ts's are: the trace id is
 * on every log line, and a rope would be flattened again at each.
 */
import { randomByte } from "../ids.ts";

const HEX = Array.from("0123456789abcdef", (char) => char.charCodeAt(0));
const TRACE = new Array<number>(32);
const SPAN = new Array<number>(16);

function hex(chars: number[]): string {
  const bytes = chars.length / 2;
  let zero = true;
  for (let i = 0; i < bytes; i++) {
    const byte = randomByte();
    if (byte) zero = false;
    chars[2 * i] = HEX[byte >> 4]!;
    chars[2 * i + 1] = HEX[byte & 15]!;
  }
  // All zeros is the invalid id: vanishingly rare, and drawn again.
  return zero ? hex(chars) : String.fromCharCode.apply(null, chars);
}

export const newTraceId = (): string => hex(TRACE);
export const newSpanId = (): string => hex(SPAN);
