/**
 * In-flight research calls in this process. Spec 8.3: at peak load free
 * buckets refill more slowly, so paying callers keep their capacity.
 */
export class InFlightGauge {
  private current = 0;

  get value(): number {
    return this.current;
  }

  /** Counts one call in; the returned function counts it out (safe to call twice). */
  enter(): () => void {
    this.current++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.current--;
    };
  }
}
