/**
 * Prefixed, time-sortable public ids (`acct_…`, `key_…`, `req_…`): the prefix
 * says what an id is, the time part keeps them in creation order in indexes
 * and logs. 10 characters of milliseconds, 16 of randomness (80 bits).
 */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lowercase

export type IdPrefix = "acct" | "key" | "req" | "page" | "ep" | "pub" | "pubv" | "sess" | "user" | "aud" | "link" | "abf" | "use";

// One request id per call: drawing the CSPRNG's bytes 4 KiB at a time instead of 16 saves a native call on most.
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

export function newId(prefix: IdPrefix, now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = "";
  for (let i = 0; i < 16; i++) random += ALPHABET[randomByte() & 31];
  return `${prefix}_${time}${random}`;
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
