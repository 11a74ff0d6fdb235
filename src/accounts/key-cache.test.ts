import { expect, test } from "bun:test";
import { KeyCache, LIVE_TTL_MS, type KeyLookup } from "./key-cache.ts";

function lookup(keyId: string, accountId: string): KeyLookup {
  const at = new Date(0);
  return {
    key: {
      id: keyId,
      accountId,
      name: null,
      prefix: `sk_live_${keyId}`,
      hash: "h",
      createdAt: at,
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
      replacedBy: null,
    },
    account: {
      id: accountId,
      name: "a",
      balanceMicros: 0,
      customRateLimit: null,
      status: "active",
      statusReason: null,
      statusChangedAt: null,
      sharedBucket: null,
      email: null,
      passwordHash: null,
      createdAt: at,
      updatedAt: at,
    },
  };
}

test("without the change feed an entry lives the short TTL; with it, the long one", () => {
  let now = 0;
  const cache = new KeyCache(2_000, () => now);
  cache.set("p1", lookup("k1", "a1"), cache.version());
  now = 2_000;
  expect(cache.get("p1")).toBeUndefined();
  expect(cache.account("a1")).toBeUndefined();

  cache.following();
  cache.set("p1", lookup("k1", "a1"), cache.version());
  now += LIVE_TTL_MS - 1;
  expect(cache.get("p1")?.key.id).toBe("k1");
  expect(cache.account("a1")?.id).toBe("a1");
  now += 1;
  expect(cache.get("p1")).toBeUndefined();
});

test("a (re)connected feed starts from an empty cache: announcements made while it was away are lost", () => {
  const cache = new KeyCache(2_000, () => 0);
  cache.set("p1", lookup("k1", "a1"), cache.version());
  cache.following();
  expect(cache.get("p1")).toBeUndefined();
  cache.set("p1", lookup("k1", "a1"), cache.version());
  cache.notFollowing();
  expect(cache.get("p1")).toBeUndefined();
});

test("forgetting an account drops its keys and its row, and nobody else's", () => {
  const cache = new KeyCache(2_000, () => 0);
  cache.set("p1", lookup("k1", "a1"), cache.version());
  cache.set("p2", lookup("k2", "a1"), cache.version());
  cache.set("p3", lookup("k3", "a2"), cache.version());
  cache.forgetAccount("a1");
  expect([cache.get("p1"), cache.get("p2"), cache.account("a1")]).toEqual([undefined, undefined, undefined]);
  expect(cache.get("p3")?.key.id).toBe("k3");
  expect(cache.account("a2")?.id).toBe("a2");
});

test("a TTL of 0 turns the cache off, feed or not", () => {
  const cache = new KeyCache(0, () => 0);
  cache.following();
  cache.set("p1", lookup("k1", "a1"), cache.version());
  expect(cache.get("p1")).toBeUndefined();
});

test("a row read while an eviction happened is not cached: it may predate the change", () => {
  const cache = new KeyCache(2_000, () => 0);
  cache.following();
  const before = cache.version();
  cache.forgetAccount("a1"); // a revocation announced while the lookup's query ran
  cache.set("p1", lookup("k1", "a1"), before);
  cache.setKeysOf("a1", [lookup("k1", "a1").key], before);
  expect(cache.get("p1")).toBeUndefined();
  expect(cache.keysOf("a1")).toBeUndefined();
  cache.set("p1", lookup("k1", "a1"), cache.version());
  expect(cache.get("p1")?.key.id).toBe("k1");
});

test("an account's key list is cached and goes with the account", () => {
  const cache = new KeyCache(2_000, () => 0);
  cache.setKeysOf("a1", [lookup("k1", "a1").key], cache.version());
  expect(cache.keysOf("a1")?.map((k) => k.id)).toEqual(["k1"]);
  cache.forgetAccount("a1");
  expect(cache.keysOf("a1")).toBeUndefined();
});

test("a prefix no key has is remembered for the short TTL, and forgotten when any account changes", () => {
  let now = 0;
  const cache = new KeyCache(2_000, () => now);
  cache.following();
  cache.setUnknown("sk_live_nothere", cache.version());
  expect(cache.isUnknown("sk_live_nothere")).toBe(true);
  now = 2_000;
  expect(cache.isUnknown("sk_live_nothere")).toBe(false);
  cache.setUnknown("sk_live_nothere", cache.version());
  cache.forgetAccount("a1"); // e.g. a key created somewhere
  expect(cache.isUnknown("sk_live_nothere")).toBe(false);
});
