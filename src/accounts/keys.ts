/**
 * API key format: `sk_live_` + 40 random base62 characters + a 6-character
 * checksum. The first 16 characters (`sk_live_` and 8 random ones) are the
 * key's public prefix, shown in lists and used to find its row; the checksum
 * lets a typo or a made-up key be refused before any database work. Only the
 * SHA-256 of the whole key is stored.
 */
import { hash, timingSafeEqual } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const KEY_LABEL = "sk_live_";
/** Where every snippet, guide and CLI hint tells a client to keep its key (Critique's clients read this variable). */
export const KEY_ENV = "CRITIQUE_API_KEY";
const BODY_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
export const PREFIX_LENGTH = KEY_LABEL.length + 8;
const KEY_SHAPE = new RegExp(`^${KEY_LABEL}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export interface NewApiKey {
  secret: string;
  prefix: string;
  hash: string;
}

/**
 * Every authenticated call hashes its key. Web Crypto's digest is async only: a hop through the event
 * loop per call for ~1 µs of work; node:crypto's hash is the same SHA-256 without the hop.
 */
export function hashApiKey(secret: string): string {
  return hash("sha256", secret, "hex");
}

export function generateApiKey(): NewApiKey {
  const body = randomBase62(BODY_LENGTH);
  const secret = `${KEY_LABEL}${body}${checksum(`${KEY_LABEL}${body}`)}`;
  return { secret, prefix: secret.slice(0, PREFIX_LENGTH), hash: hashApiKey(secret) };
}

/** The key's lookup prefix when it is well formed (shape and checksum), else null. */
export function parseApiKey(candidate: string): { prefix: string } | null {
  if (!KEY_SHAPE.test(candidate)) return null;
  const body = candidate.slice(0, candidate.length - CHECKSUM_LENGTH);
  if (checksum(body) !== candidate.slice(-CHECKSUM_LENGTH)) return null;
  return { prefix: candidate.slice(0, PREFIX_LENGTH) };
}

const encoder = new TextEncoder();

export function sameHash(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
