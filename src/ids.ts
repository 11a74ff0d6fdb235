/**
 * Prefixed, time-sortable public ids (`acct_…`, `key_…`, `req_…`): the prefix
 * says what an id is, the time part keeps them in creation order in indexes
 * and logs. 10 characters of milliseconds, 16 of randomness (80 bits).
 */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lowercase
const CODES = Array.from(ALPHABET, (char) => char.charCodeAt(0));

export type IdPrefix =
  | "acct"
  | "key"
  | "req"
  | "page"
  | "ep"
  | "pub"
  | "pubv"
  | "sess"
  | "user"
  | "aud"
  | "link"
  | "abf"
  | "use"
  | "task"
  | "batch"
  | "mon"
  | "msg";

// One request id per call: drawing the CSPRNG's bytes 4 KiB at a time instead of 16 saves a native call on most.
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** One byte from the CSPRNG, drawn from a pool refilled 4 KiB at a time (span ids draw here too). */
export function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

const chars = new Array<number>(26);

/**
 * Built from its character codes in one piece: an id concatenated a character at a time is a rope, which every
 * JSON.stringify of it (a log line, a batch of usage rows) flattens again: 2.3 µs a row of two ids against 0.7.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  let t = now;
  for (let i = 9; i >= 0; i--) {
    chars[i] = CODES[t % 32]!;
    t = Math.floor(t / 32);
  }
  for (let i = 10; i < 26; i++) chars[i] = CODES[randomByte() & 31]!;
  return `${prefix}_${String.fromCharCode.apply(null, chars)}`;
}

const ID_SHAPE = /^[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}$/;

/** A cheap shape check before a lookup: a malformed id cannot exist, so it is a 404 without a query. */
export function looksLikeId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_SHAPE.test(value);
}

/** Stubs, an endpoint's and a public one: 1 to 64 lowercase letters, digits and inner hyphens. */
export const STUB_SHAPE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Like looksLikeId, for the stubs in service and marketplace paths. */
export function couldBeStub(value: string): boolean {
  return STUB_SHAPE.test(value);
}
