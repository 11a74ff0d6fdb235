/**
 * Random trace and span ids, as lowercase hex: drawn from Web Crypto a few
 * kilobytes at a time, so an id costs a table lookup per byte rather than a
 * call into the random source (W3C asks that a trace id's right half be
 * random: all of it is).
 */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
const pool = new Uint8Array(4096);
let used = pool.length;

function hex(bytes: number): string {
  if (used + bytes > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  let out = "";
  for (let i = 0; i < bytes; i++) out += HEX[pool[used++]!];
  // All zeros is the invalid id: vanishingly rare, and drawn again.
  return /[^0]/.test(out) ? out : hex(bytes);
}

export const newTraceId = (): string => hex(16);
export const newSpanId = (): string => hex(8);
