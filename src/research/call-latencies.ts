/**
 * One search provider's recent call times on this instance, so a straggler's
 * grace (quorum.ts) scales with what that provider usually takes: the local
 * index answers in milliseconds and Wikipedia in hundreds, and a grace drawn
 * from whichever answered first would cut the slower provider every time.
 */
export class CallLatencies {
  private readonly samples: number[] = [];
  private next = 0;

  constructor(private readonly size = 64) {}

  /**
   * A call's time. A cut call records how long it had been waiting (a lower
   * bound of its time), so a provider that has become slower raises its own
   * median, gets a longer grace and is heard again, instead of being cut for
   * ever against a median from before.
   */
  record(ms: number): void {
    if (this.samples.length < this.size) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.size;
  }

  /** The median of the recent calls, or undefined before the first. */
  median(): number | undefined {
    return medianOf(this.samples);
  }
}

function medianOf(samples: readonly number[]): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
