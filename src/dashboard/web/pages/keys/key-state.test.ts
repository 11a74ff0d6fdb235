import { describe, expect, test } from "bun:test";
import type { ApiKey } from "../../model.ts";
import { keyState } from "./key-state.ts";

const now = Date.UTC(2026, 5, 1, 12);
const at = (ms: number) => new Date(now + ms).toISOString();
const key = (fields: Partial<ApiKey>): ApiKey => ({
  id: "key_01",
  name: null,
  prefix: "sk_live_abcdefgh",
  created_at: at(-1000),
  last_used_at: null,
  revoked_at: null,
  expires_at: null,
  replaced_by: null,
  ...fields,
});

describe("a key's row", () => {
  test("a key without an expiry never expires, and may be rotated or revoked", () => {
    expect(keyState(key({}), now)).toEqual({ status: "Active", expires: "Never", works: true, canRotate: true, canRevoke: true });
  });

  test("an expiry reads as the time left, in the largest unit that fits", () => {
    expect(keyState(key({ expires_at: at(5 * 86_400_000) }), now).expires).toBe("in 5 days");
    expect(keyState(key({ expires_at: at(47 * 3_600_000) }), now).expires).toBe("in 47 hours");
    expect(keyState(key({ expires_at: at(3_600_000 - 5_000) }), now).expires).toBe("in 1 hour");
    expect(keyState(key({ expires_at: at(12 * 60_000) }), now).expires).toBe("in 12 minutes");
    expect(keyState(key({ expires_at: at(5_000) }), now).expires).toBe("in 1 minute");
  });

  test("an expired key says so and offers nothing", () => {
    expect(keyState(key({ expires_at: at(0) }), now)).toMatchObject({
      expires: "Expired",
      works: false,
      canRotate: false,
      canRevoke: false,
    });
  });

  test("a rotated key works until its grace ends, may be revoked early, and is not rotated again", () => {
    const rotated = keyState(key({ replaced_by: "key_02", expires_at: at(3_600_000) }), now);
    expect(rotated).toMatchObject({ expires: "in 1 hour", works: true, canRotate: false, canRevoke: true });
    expect(rotated.status).toStartWith("Rotated; works until ");
    const done = keyState(key({ replaced_by: "key_02", expires_at: at(-1) }), now);
    expect(done).toMatchObject({ expires: "Expired", works: false, canRevoke: false });
    expect(done.status).toStartWith("Rotated; stopped ");
  });

  test("a revoked key is revoked, whatever else it says", () => {
    const revoked = keyState(key({ revoked_at: at(-10), replaced_by: "key_02", expires_at: at(60_000) }), now);
    expect(revoked).toMatchObject({ works: false, canRotate: false, canRevoke: false });
    expect(revoked.status).toStartWith("Revoked ");
  });
});
