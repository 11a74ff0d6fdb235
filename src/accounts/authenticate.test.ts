import { expect, test } from "bun:test";
import { ManualClock } from "../clock.ts";
import type { ServiceError } from "../errors.ts";
import type { AccountsContext } from "./context.ts";
import { KeyCache } from "./key-cache.ts";
import { generateApiKey } from "./keys.ts";
import { authenticate } from "./service.ts";

// The database is reached only on a cache miss: here it refuses every query, so a miss shows as a rejected promise.
const unreachable = new Proxy(
  {},
  {
    get() {
      throw new Error("no database in this test");
    },
  },
);

function setup() {
  const clock = new ManualClock(1_000_000);
  const cache = new KeyCache(60_000, () => clock.now());
  const ctx: AccountsContext = { db: unreachable as AccountsContext["db"], clock, keyCache: cache };
  const key = generateApiKey();
  const at = new Date(clock.now());
  cache.set(
    key.prefix,
    {
      key: {
        id: "key_a",
        accountId: "acct_a",
        name: null,
        prefix: key.prefix,
        hash: key.hash,
        createdAt: at,
        lastUsedAt: at,
        revokedAt: null,
        expiresAt: null,
        replacedBy: null,
      },
      account: {
        id: "acct_a",
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
    },
    cache.version(),
  );
  return { ctx, cache, key };
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as ServiceError).code;
  }
  return "answered";
};

test("a cached key is answered at once, without a promise", () => {
  const { ctx, key } = setup();
  const caller = authenticate(ctx, key.secret);
  expect(caller).not.toBeInstanceOf(Promise);
  expect((caller as Awaited<typeof caller>).accountId).toBe("acct_a");
});

test("a malformed key, and a key whose prefix is known not to exist, are refused at once", () => {
  const { ctx, cache } = setup();
  expect(refusal(() => authenticate(ctx, "sk_live_not_a_key"))).toBe("unauthorized");
  const other = generateApiKey();
  cache.setUnknown(other.prefix, cache.version());
  expect(refusal(() => authenticate(ctx, other.secret))).toBe("unauthorized");
});

test("a key neither cached nor known missing is looked up: a promise", async () => {
  const { ctx } = setup();
  const asked = authenticate(ctx, generateApiKey().secret);
  expect(asked).toBeInstanceOf(Promise);
  expect(await Promise.resolve(asked).catch((error: unknown) => (error as Error).message)).toBe("no database in this test");
});
