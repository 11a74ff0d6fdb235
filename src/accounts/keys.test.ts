import { describe, expect, test } from "bun:test";
import { generateApiKey, hashApiKey, parseApiKey, PREFIX_LENGTH, sameHash } from "./keys.ts";

describe("API keys", () => {
  test("are long, random, start with sk_live_, and carry their prefix", async () => {
    const a = await generateApiKey();
    const b = await generateApiKey();
    expect(a.secret).toMatch(/^sk_live_[0-9A-Za-z]{46}$/);
    expect(a.secret).not.toBe(b.secret);
    expect(a.prefix).toBe(a.secret.slice(0, PREFIX_LENGTH));
    expect(a.hash).toBe(await hashApiKey(a.secret));
    expect(a.hash).not.toContain(a.secret.slice(8));
  });

  test("a typo, a truncation or a made-up key fails the checksum before any lookup", async () => {
    const { secret } = await generateApiKey();
    expect(parseApiKey(secret)).toEqual({ prefix: secret.slice(0, PREFIX_LENGTH) });
    const last = secret.at(-1) === "a" ? "b" : "a";
    expect(parseApiKey(secret.slice(0, -1) + last)).toBeNull();
    expect(parseApiKey(secret.slice(0, -1))).toBeNull();
    expect(parseApiKey(`sk_test_${secret.slice(8)}`)).toBeNull();
    expect(parseApiKey(`${secret}, ${secret}`)).toBeNull();
    expect(parseApiKey("")).toBeNull();
  });

  test("hashes compare in constant time and only equal when equal", async () => {
    const { hash } = await generateApiKey();
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, hash.replace(/.$/, "0"))).toBe(hash.endsWith("0"));
    expect(sameHash(hash, hash.slice(1))).toBe(false);
  });
});
