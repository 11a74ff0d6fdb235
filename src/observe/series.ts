/**
 * The catalogue's counters and histograms when metrics are on: each series
 * is a plain object found by its label values joined into one string, and
 * prom-client reads them only when scraped (they register in its registry
 * as metrics of its own shape: name, help, type, get, reset), so its text
 * format, its process metrics and its gauges stay as they are.
 *
 * In place of prom-client's own Counter and Histogram on the request path:
 * each of their calls validates the label names, sorts them and builds a
 * hash string, and a histogram's looks its bucket up by value. Measured in
 * one loop, a request's counter and histogram cost 0.40 µs with prom-client's
 * and 0.05 µs these. In the app (`npm run bench:observability`), metrics on
 * cost an unauthenticated request (7.5 µs) about 0.9 µs with prom-client's
 * and about 0.4 µs with these.
 */
type LabelValues = Partial<Record<string, string | number>>;
type Labels = Record<string, string | number>;

/** What prom-client's registry reads at a scrape: one line of the metric's values. */
interface Value {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** Our own labels object for a series: only the metric's label names, in their order, so no caller's object is kept. */
function ownLabels(names: readonly string[], labels: LabelValues): Labels {
  const own: Labels = {};
  for (const name of names) {
    const value = labels[name];
    if (value !== undefined) own[name] = value;
  }
  return own;
}

/** One string for the label values, in the label names' order (a separator no label value holds between them). */
function keyOf(names: readonly string[], labels: LabelValues): string {
  if (names.length === 0) return "";
  let key = String(labels[names[0]!] ?? "");
  for (let i = 1; i < names.length; i++) key += `\u0001${labels[names[i]!] ?? ""}`;
  return key;
}

abstract class Series<S extends { labels: Labels }> {
  readonly aggregator = "sum";
  protected readonly series = new Map<string, S>();
  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
  ) {}
  protected seriesOf(labels: LabelValues): S {
    const key = keyOf(this.labelNames, labels);
    let found = this.series.get(key);
    if (!found) this.series.set(key, (found = this.fresh(ownLabels(this.labelNames, labels))));
    return found;
  }
  protected abstract fresh(labels: Labels): S;
  reset(): void {
    this.series.clear();
  }
}

export class SeriesCounter extends Series<{ labels: Labels; value: number }> {
  readonly type = "counter";
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    /** Called before a scrape reads it: a counter read from its owner's total (metrics.ts counterFrom) is set here. */
    private readonly collect?: (counter: SeriesCounter) => void,
  ) {
    super(name, help, labelNames);
  }
  protected fresh(labels: Labels) {
    return { labels, value: 0 };
  }
  inc(labels: LabelValues = {}, value = 1): void {
    // A counter never goes down: a negative or non-numeric step is dropped, never thrown into a request's path.
    if (!(value >= 0)) return;
    this.seriesOf(labels).value += value;
  }
  get() {
    this.collect?.(this);
    const values: Value[] = [];
    for (const { labels, value } of this.series.values()) values.push({ labels, value });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class SeriesHistogram extends Series<{ labels: Labels; counts: Float64Array; sum: number; count: number }> {
  readonly type = "histogram";
  private readonly bounds: readonly number[];
  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.bounds = [...buckets].sort((a, b) => a - b);
  }
  protected fresh(labels: Labels) {
    return { labels, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
  }
  observe(labels: LabelValues, value: number): void {
    if (Number.isNaN(value)) return;
    const series = this.seriesOf(labels);
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    // Above the last bound, a value is counted in +Inf only: the count.
    if (bucket < bounds.length) series.counts[bucket]!++;
    series.sum += value;
    series.count++;
  }
  get() {
    const values: Value[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let below = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        below += counts[i]!;
        values.push({ labels: { le: this.bounds[i]!, ...labels }, value: below, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: "+Inf", ...labels }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
