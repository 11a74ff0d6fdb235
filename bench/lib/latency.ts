/** Seeded randomness for benchmarks: repeatable heavy-tailed latencies. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A log-normal draw around `median` (sigma 0.5 to 1 gives the long right tail real services have). */
export function lognormal(random: () => number, median: number, sigma: number): number {
  const u = Math.max(random(), 1e-12);
  const v = random();
  const gaussian = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return median * Math.exp(sigma * gaussian);
}
