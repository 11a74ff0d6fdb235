/**
 * How sure a bench's median of rounds is: a distribution-free interval for the median from the rounds' own order
 * statistics (the k-th smallest and the k-th largest of n hold the true median with probability
 * 1 − 2·P(Binomial(n, ½) ≤ k − 1)), and what it says of a bound. The rounds' ratios are not normal on a shared
 * machine (one round out of step reads 1.2), so no mean and standard error: only ranks.
 */

export interface MedianInterval {
  median: number;
  low: number;
  high: number;
  /** The chance that the interval holds the true median: at least the confidence asked for, when there are rounds enough. */
  coverage: number;
}

/** P(Binomial(n, ½) ≤ k), exactly enough for the few dozen rounds a bench runs. */
function binomialAtMost(n: number, k: number): number {
  let term = 0.5 ** n;
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/**
 * The median and the narrowest interval of order statistics that holds it with at least `confidence`; with too few
 * rounds for that (fewer than 5 at 90%), the whole range and the coverage it has. Undefined without a value.
 */
export function medianInterval(values: readonly number[], confidence = 0.9): MedianInterval | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  let k = 1;
  while (k + 1 <= n - k && 1 - 2 * binomialAtMost(n, k) >= confidence) k++;
  return { median: middle, low: sorted[k - 1]!, high: sorted[n - k]!, coverage: 1 - 2 * binomialAtMost(n, k - 1) };
}

/** What an interval says of a ratio's bound: under it, over it, or not told apart from it. */
export function againstBound(interval: MedianInterval, bound: number): "within" | "over" | "can't tell" {
  if (interval.high <= bound) return "within";
  if (interval.low > bound) return "over";
  return "can't tell";
}
