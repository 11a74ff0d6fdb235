/**
 * The detector never stands in a call's way: what it is given is counted
 * in the background, a store that fails or hangs costs the call nothing,
 * and paid accounts are not even looked at. (Flags, actions and the real
 * stores: test/integration/abuse-detection.test.ts and windows.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import type { Database } from "../../db/client.ts";
import { BackgroundWrites } from "../background.ts";
import { ManualClock } from "../clock.ts";
import type { Caller } from "../caller.ts";
import { createLogger } from "../log.ts";
import { AbuseDetector } from "./detector.ts";
import { KeyedHash } from "./keyed-hash.ts";
import type { WindowStore } from "./window-store.ts";
import { windowSettings, type Breach, type Sighting } from "./windows.ts";

const caller = (balanceMicros: number): Caller => ({
  accountId: "acct_probe",
  accountName: "probe",
  keyId: "key_probe",
  keyPrefix: "as_probe",
  balanceMicros,
  customRateLimit: null,
});

/** A store that records what it is asked, then answers as told: nothing, an error, or never. */
class ScriptedStore implements WindowStore {
  readonly name = "redis" as const;
  readonly asked: Sighting[][] = [];
  constructor(private readonly answer: "nothing" | "fail" | "hang") {}
  record(sightings: readonly Sighting[]): Promise<Breach[]> {
    this.asked.push([...sightings]);
    if (this.answer === "fail") return Promise.reject(new Error("READONLY You can't write against a read only replica."));
    if (this.answer === "hang") return new Promise(() => {});
    return Promise.resolve([]);
  }
  async close() {}
}

function detector(store: WindowStore) {
  const lines: string[] = [];
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  const background = new BackgroundWrites();
  const abuse = new AbuseDetector(
    store,
    {
      // Never reached: these stores report no breach, so no flag is written.
      accounts: { db: {} as Database, clock },
      log: createLogger({ level: "info", sink: (line) => lines.push(line) }),
      background,
      hashKey: async () => new KeyedHash("a key for the detector's unit test"),
    },
    { action: "report", windows: windowSettings([60, 600], 10, 3), keyPrefix: "t:", retentionDays: 30 },
  );
  return { abuse, lines, background };
}

describe("the detector, on the call's path", () => {
  test("a Free call is counted under its keyed address and its work; the raw address and prompt never reach the store", async () => {
    const store = new ScriptedStore("nothing");
    const { abuse, background } = detector(store);
    abuse.observe({ caller: caller(0), address: "198.51.100.7" }, { prompt: "price of AAPL", fields: [] });
    await background.settled();
    expect(store.asked).toHaveLength(1);
    const [address, work] = store.asked[0]!;
    expect(address).toMatchObject({ kind: "address", key: `t:abuse:address:${address!.subject}` });
    expect(work).toMatchObject({ kind: "work", key: `t:abuse:work:${work!.subject}` });
    expect(address!.member.split("|").slice(0, 2)).toEqual(["acct_probe", work!.subject]);
    expect(JSON.stringify(store.asked)).not.toContain("198.51.100.7");
    expect(JSON.stringify(store.asked)).not.toContain("AAPL");
  });

  test("paid callers are not counted; a call with neither address nor work has nothing to count", async () => {
    const store = new ScriptedStore("nothing");
    const { abuse, background } = detector(store);
    abuse.observe({ caller: caller(5_000_000), address: "198.51.100.7" }, { endpoint: "user:price" });
    abuse.observe({ caller: { ...caller(0), customRateLimit: 5_000 }, address: "198.51.100.7" }, null);
    abuse.observe({ caller: caller(0), address: null }, null);
    await background.settled();
    expect(store.asked).toEqual([]);
  });

  test("a store that fails: observe returns at once, the failure is logged once per interval, nothing is thrown", async () => {
    const { abuse, lines, background } = detector(new ScriptedStore("fail"));
    for (let i = 0; i < 5; i++) expect(abuse.observe({ caller: caller(0), address: "198.51.100.7" }, null)).toBeUndefined();
    await background.settled();
    const warned = lines.filter((l) => l.includes("abuse detection failed"));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("READONLY");
  });

  test("a store that hangs: counts in flight are bounded, and past the bound calls go uncounted with a warning", async () => {
    const store = new ScriptedStore("hang");
    const { abuse, lines } = detector(store);
    const started = performance.now();
    for (let i = 0; i < 1_200; i++) abuse.observe({ caller: caller(0), address: `198.51.100.${i % 250}` }, null);
    expect(performance.now() - started).toBeLessThan(1_000);
    await Bun.sleep(10);
    expect(store.asked).toHaveLength(1_000);
    expect(lines.filter((l) => l.includes("abuse detection is behind"))).toHaveLength(1);
  });
});
