/**
 * The read grace on a manual clock: when a slow read's grace starts, how
 * long it is, what is cut and what is recorded. The run's reads through it,
 * against a slow page server, are in test/integration/search-read-grace.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock.ts";
import { CallLatencies } from "./call-latencies.ts";
import { ReadCut, ReadGrace, readGraceMs, type GracedRead, type ReadGraceSettings } from "./read-grace.ts";

const settings = (extra: Partial<ReadGraceSettings> = {}): ReadGraceSettings => ({
  enabled: true,
  share: 0.5,
  graceFactor: 2,
  graceMinMs: 100,
  graceMaxMs: 2_000,
  ...extra,
});

/** Page reads that recently took `ms` each. */
function readTimes(...ms: number[]): CallLatencies {
  const latencies = new CallLatencies();
  for (const m of ms) latencies.record(m);
  return latencies;
}

/** A fresh read ends: its site answers, then its page is read. */
function arrive(graced: ReadGrace, read: GracedRead): void {
  graced.fetched(read);
  graced.settle(read);
}

function grace(reads: number, latencies = readTimes(80, 80, 80), extra: Partial<ReadGraceSettings> = {}) {
  const clock = new ManualClock();
  const run = new AbortController();
  const graced = new ReadGrace({ settings: settings(extra), reads, latencies, signal: run.signal, clock });
  return { clock, run, graced, latencies };
}

describe("a slow read's grace starts once the share of the run's reads is in", () => {
  test("the reads still out are cut after the factor times the median read time, their signals carry the cut", () => {
    const { clock, graced } = grace(4);
    const reads = Array.from({ length: 4 }, () => graced.begin());
    clock.advance(50);
    arrive(graced, reads[0]!);
    clock.advance(10);
    arrive(graced, reads[1]!);
    // Two of four in: the others get 2 × the median (80, 80, 80, 50, 60 → 80) = 160 ms from now.
    clock.advance(159);
    expect(reads[2]!.signal.aborted).toBe(false);
    clock.advance(1);
    for (const read of reads.slice(2)) {
      expect(read.signal.aborted).toBe(true);
      const cut = graced.cutOf(read);
      expect(cut).toBeInstanceOf(ReadCut);
      expect(cut).toMatchObject({ graceMs: 160, waitedMs: 220 });
    }
    expect(graced.cutOf(reads[0]!)).toBeUndefined();
  });

  test("before the share is in, no read is cut however long it takes", () => {
    const { clock, graced } = grace(4);
    const reads = Array.from({ length: 4 }, () => graced.begin());
    arrive(graced, reads[0]!);
    clock.advance(60_000);
    expect(reads.slice(1).some((read) => read.signal.aborted)).toBe(false);
  });

  test("a failed read counts as in", () => {
    const { clock, graced } = grace(2);
    const [failed, slow] = [graced.begin(), graced.begin()];
    graced.settle(failed);
    clock.advance(160);
    expect(graced.cutOf(slow)).toBeInstanceOf(ReadCut);
  });

  test("a read that arrives within its grace is not cut", () => {
    const { clock, graced } = grace(2);
    const [fast, slower] = [graced.begin(), graced.begin()];
    arrive(graced, fast);
    clock.advance(150);
    arrive(graced, slower);
    clock.advance(1_000);
    expect(slower.signal.aborted).toBe(false);
    expect(graced.cutOf(slower)).toBeUndefined();
  });

  test("a read whose site has answered is not cut while its page is extracted", () => {
    const { clock, graced } = grace(2);
    const [fast, big] = [graced.begin(), graced.begin()];
    arrive(graced, fast);
    clock.advance(100);
    graced.fetched(big);
    clock.advance(10_000);
    expect(big.signal.aborted).toBe(false);
    graced.settle(big);
    expect(graced.cutOf(big)).toBeUndefined();
  });

  test("a grace whose timer fires late (the process was busy) is extended by as long, so an answer waiting unheard is not cut", () => {
    const { clock, graced } = grace(2);
    const [fast, slow] = [graced.begin(), graced.begin()];
    arrive(graced, fast);
    // The grace is 160 ms; the process is busy for 300 ms, so the timer fires 140 ms late and the read gets 140 ms more.
    clock.stall(300);
    clock.advance(0);
    expect(slow.signal.aborted).toBe(false);
    clock.advance(139);
    expect(slow.signal.aborted).toBe(false);
    clock.advance(1);
    expect(graced.cutOf(slow)).toMatchObject({ graceMs: 300, waitedMs: 440 });
  });

  test("the extensions end at the longest grace: a process always busy still cuts", () => {
    const { clock, graced } = grace(2, readTimes(80), { graceMaxMs: 500 });
    const [fast, slow] = [graced.begin(), graced.begin()];
    arrive(graced, fast);
    for (let i = 0; i < 10 && !slow.signal.aborted; i++) {
      clock.stall(400);
      clock.advance(0);
    }
    expect(graced.cutOf(slow)).toBeInstanceOf(ReadCut);
  });

  test("a read begun after the share is in gets its grace from its start; one begun earlier is timed from then", () => {
    const { clock, graced, latencies } = grace(3, readTimes(100));
    const early = graced.begin(clock.now() - 400);
    // Its site answered 50 ms ago: that is the time recorded, not the wait since.
    graced.fetched(early, clock.now() - 50);
    graced.settle(early);
    expect(latencies.median()).toBe(225);
    graced.settle(graced.begin());
    clock.advance(100);
    const late = graced.begin();
    clock.advance(449);
    expect(late.signal.aborted).toBe(false);
    clock.advance(1);
    expect(graced.cutOf(late)).toMatchObject({ graceMs: 450, waitedMs: 450 });
  });

  test("SEARCH_READ_GRACE=false never cuts", () => {
    const { clock, graced } = grace(2, readTimes(80), { enabled: false });
    const [fast, slow] = [graced.begin(), graced.begin()];
    arrive(graced, fast);
    clock.advance(60_000);
    expect(slow.signal.aborted).toBe(false);
  });

  test("the run's own abort reaches every read, and is not a cut", () => {
    const { run, graced } = grace(2);
    const read = graced.begin();
    run.abort(new Error("caller went away"));
    expect(read.signal.aborted).toBe(true);
    expect(graced.cutOf(read)).toBeUndefined();
  });
});

describe("the read times the grace scales with", () => {
  test("the time a site took to answer is recorded, a cache hit's is not, and a cut read's as long as it waited", () => {
    const { clock, graced, latencies } = grace(3, readTimes());
    const [fresh, cached, slow] = [graced.begin(), graced.begin(), graced.begin()];
    clock.advance(40);
    graced.settle(cached);
    clock.advance(60);
    arrive(graced, fresh);
    // One fresh read of 100 ms: the straggler gets 200 ms and records 300 ms.
    clock.advance(200);
    expect(graced.cutOf(slow)).toMatchObject({ graceMs: 200, waitedMs: 300 });
    expect(latencies.median()).toBe(200);
  });

  test("the grace is the factor times the median within the bounds, and the longest with no read yet", () => {
    const bounds = settings({ graceFactor: 2, graceMinMs: 100, graceMaxMs: 2_000 });
    expect(readGraceMs(bounds, 80)).toBe(160);
    expect(readGraceMs(bounds, 10)).toBe(100);
    expect(readGraceMs(bounds, 5_000)).toBe(2_000);
    expect(readGraceMs(bounds, undefined)).toBe(2_000);
  });
});
