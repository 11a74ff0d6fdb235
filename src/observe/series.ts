/**
 * The catalogue's counters and histograms when metrics are on: each series
 * is a plain object found by its label values, one map a label, and
 * prom-client reads them only when scraped (they register in its registry
 * as metrics of its own shape: name, help, type, get, reset), so its text
 * format, its process metrics and its gauges stay as they are.
 *
 * In place of prom-client's own Counter and Histogram on the request path:
 * each of their calls validates the label names, sorts them and builds a
 * hash string, and a histogram's looks its bucket up by value. In one loop
 * (`npm run bench:observability`'s pieces), a request's counter and
 * histogram cost 0.40 µs with prom-client's and 0.07 µs these.
 *
 * A counter that only ever counts what a histogram observes, by the same
 * labels (requests answered beside their latency), is read from the
 * histogram's counts at a scrape (SeriesCount): in a server, a series looked
 * up by its labels was the largest piece of a request's metrics, and this
 * way a request looks up one, not two.
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

/**
 * A label's value as it is looked up: a number as its text, so 200 and "200" are one series, as in the scrape; a
 * label not given stays undefined, a series apart from the one whose value is "" (as in prom-client).
 */
const valueKey = (value: string | number | undefined): string | undefined => (typeof value === "number" ? String(value) : value);

/**
 * A tree of maps, one level a label, whose leaves are the series. Looked up value by value: the values on the
 * request path are the same strings every time (a route template, a method, a status class), whose hashes the
 * runtime keeps, where one key joined from them would be a new string to build and hash at every call.
 */
type Node<S> = Map<string | undefined, Node<S> | S>;

abstract class Series<S extends { labels: Labels }> {
  readonly aggregator = "sum";
  /** Every series, in the order made: what a scrape reads. */
  protected readonly series: S[] = [];
  private tree: Node<S> = new Map();
  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
  ) {}
  protected seriesOf(labels: LabelValues): S {
    const names = this.labelNames;
    let node = this.tree;
    // A metric without labels has one series, kept under no value.
    const last = names.length - 1;
    for (let i = 0; i < last; i++) {
      const value = valueKey(labels[names[i]!]);
      let next = node.get(value) as Node<S> | undefined;
      if (!next) node.set(value, (next = new Map()));
      node = next;
    }
    const value = last < 0 ? undefined : valueKey(labels[names[last]!]);
    let found = node.get(value) as S | undefined;
    if (!found) {
      node.set(value, (found = this.fresh(ownLabels(names, labels))));
      this.series.push(found);
    }
    return found;
  }
  protected abstract fresh(labels: Labels): S;
  reset(): void {
    this.series.length = 0;
    this.tree = new Map();
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
    for (const { labels, value } of this.series) values.push({ labels, value });
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
  /** Each series' labels and how many values it observed: what a counter of the same observations reads. */
  counts(): Value[] {
    return this.series.map(({ labels, count }) => ({ labels, value: count }));
  }
  get() {
    const values: Value[] = [];
    for (const { labels, counts, sum, count } of this.series) {
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

/**
 * A counter of a histogram's observations, by its labels, read from the histogram when scraped: nothing is counted
 * twice on the request path. The histogram's `_count` under another name and help, as a counter.
 */
export class SeriesCount {
  readonly type = "counter";
  readonly aggregator = "sum";
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly of: SeriesHistogram,
  ) {}
  get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.of.counts() };
  }
  /** The histogram's reset empties it: it holds nothing of its own. */
  reset(): void {}
}
