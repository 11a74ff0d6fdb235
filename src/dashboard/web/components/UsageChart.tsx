/**
 * One usage measure per day as bars (calls with their errors by status
 * class, tokens, cost, latency p50 and p95), drawn as inline SVG sized to its
 * container in real pixels (a scaled viewBox would shrink the labels to
 * nothing on a phone). The drawing is for the eye: a sentence under it says
 * what it shows, and the page gives the numbers as a table. Series differ in
 * shade and in pattern, and the legend names them, so none is told by colour alone.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { formatCount, formatDay, formatMoney, formatMs } from "../format.ts";
import type { UsageDay } from "../model.ts";

export type ChartKind = "calls" | "tokens" | "cost" | "latency";

interface Series {
  label: string;
  /** The CSS class of its bars (a fill, or a pattern). */
  class: string;
  value(day: UsageDay): number | null;
}

interface ChartSpec {
  title: string;
  series: Series[];
  /** Stacked series add up to the bar (calls: succeeded, 4xx, 5xx); overlaid ones each rise from zero, the later narrower. */
  stacked: boolean;
  format(n: number): string;
  summary(days: UsageDay[]): string;
}

export const CHART_TITLES: Record<ChartKind, string> = {
  calls: "Calls and errors per day",
  tokens: "Tokens per day",
  cost: "Cost per day",
  latency: "Latency per day",
};

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;
const sumOf = (days: UsageDay[], value: (day: UsageDay) => number) => days.reduce((sum, day) => sum + value(day), 0);
const span = (days: UsageDay[]) => (days.length > 0 ? `from ${formatDay(days[0]!.date)} to ${formatDay(days.at(-1)!.date)}` : "");

/** "; the highest day was <day> with <amount>." (nothing when every day is zero), `say` reading the amount. */
function busiest(days: UsageDay[], value: (day: UsageDay) => number, say: (n: number) => string): string {
  const top = days.reduce<UsageDay | null>((best, d) => (best === null || value(d) > value(best) ? d : best), null);
  return top && value(top) > 0 ? `; the highest day was ${formatDay(top.date)} with ${say(value(top))}.` : ".";
}

const SPECS: Record<ChartKind, ChartSpec> = {
  calls: {
    title: CHART_TITLES.calls,
    stacked: true,
    series: [
      { label: "Succeeded", class: "chart-bar", value: (d) => d.calls - d.client_errors - d.server_errors },
      { label: "Client errors (4xx)", class: "chart-bar-warn", value: (d) => d.client_errors },
      { label: "Server errors (5xx)", class: "chart-bar-bad", value: (d) => d.server_errors },
    ],
    format: formatCount,
    summary: (days) => {
      const calls = sumOf(days, (d) => d.calls);
      const client = sumOf(days, (d) => d.client_errors);
      const server = sumOf(days, (d) => d.server_errors);
      return (
        `${plural(calls, "call", "calls")} ${span(days)}, ${plural(client, "client error", "client errors")} (4xx) and ` +
        `${plural(server, "server error", "server errors")} (5xx)` +
        busiest(
          days,
          (d) => d.calls,
          (n) => plural(n, "call", "calls"),
        )
      );
    },
  },
  tokens: {
    title: CHART_TITLES.tokens,
    stacked: true,
    series: [{ label: "Tokens", class: "chart-bar", value: (d) => d.tokens }],
    format: formatCount,
    summary: (days) =>
      `${plural(
        sumOf(days, (d) => d.tokens),
        "token",
        "tokens",
      )} ${span(days)}${busiest(
        days,
        (d) => d.tokens,
        (n) => plural(n, "token", "tokens"),
      )}`,
  },
  cost: {
    title: CHART_TITLES.cost,
    stacked: true,
    series: [{ label: "Cost", class: "chart-bar", value: (d) => d.cost }],
    format: formatMoney,
    summary: (days) => `${formatMoney(sumOf(days, (d) => d.cost))} ${span(days)}${busiest(days, (d) => d.cost, formatMoney)}`,
  },
  latency: {
    title: CHART_TITLES.latency,
    stacked: false,
    series: [
      { label: "95th percentile", class: "chart-bar-soft", value: (d) => d.latency_p95_ms },
      { label: "Median", class: "chart-bar", value: (d) => d.latency_p50_ms },
    ],
    format: (n) => formatMs(Math.round(n)),
    summary: (days) => {
      const recorded = days.filter((d) => d.latency_p50_ms !== null);
      if (recorded.length === 0) return `No latency recorded ${span(days)}.`;
      const slowest = recorded.reduce((a, b) => ((b.latency_p95_ms ?? 0) > (a.latency_p95_ms ?? 0) ? b : a));
      return (
        `Latency recorded on ${plural(recorded.length, "day", "days")} ${span(days)}; the slowest day was ${formatDay(slowest.date)}, ` +
        `median ${formatMs(slowest.latency_p50_ms)} and 95th percentile ${formatMs(slowest.latency_p95_ms)}.`
      );
    },
  },
};

const HEIGHT = 180;
const PAD = { top: 12, right: 8, bottom: 28, left: 56 };

/** A round axis top: 1, 2 or 5 times a power of ten, at least the data's maximum. */
function niceMax(max: number): number {
  if (max <= 0) return 10;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

function useWidth(ref: { current: HTMLElement | null }): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.floor(element.clientWidth)));
    observer.observe(element);
    setWidth(Math.floor(element.clientWidth));
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

export function UsageChart({ days, kind }: { days: UsageDay[]; kind: ChartKind }) {
  const spec = SPECS[kind];
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const heights = days.map((day) =>
    spec.stacked ? spec.series.reduce((sum, s) => sum + (s.value(day) ?? 0), 0) : Math.max(0, ...spec.series.map((s) => s.value(day) ?? 0)),
  );
  const max = niceMax(Math.max(0, ...heights));
  const plotWidth = Math.max(0, width - PAD.left - PAD.right);
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = days.length > 0 ? plotWidth / days.length : 0;
  const barWidth = Math.max(1, slot * 0.7);
  const y = (value: number) => PAD.top + plotHeight - (value / max) * plotHeight;
  const ticks = [0, max / 2, max];
  const labelled = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1]);
  const summaryId = `${kind}-chart-summary`;

  const bars = (day: UsageDay, i: number) => {
    let base = 0;
    return spec.series.map((series, s) => {
      const value = series.value(day) ?? 0;
      if (value <= 0) return null;
      const from = spec.stacked ? base : 0;
      base += value;
      // Overlaid series narrow one after another, so the later (the median) sits visibly inside the earlier.
      const w = spec.stacked ? barWidth : Math.max(1, barWidth * (1 - s * 0.45));
      const x = PAD.left + i * slot + (slot - w) / 2;
      return (
        <rect key={series.label} class={series.class} x={x} y={y(from + value)} width={w} height={Math.max(0, y(from) - y(from + value))} />
      );
    });
  };

  return (
    <div class="chart" ref={box}>
      {spec.series.length > 1 ? (
        <ul class="chart-legend">
          {spec.series.map((series) => (
            <li key={series.label}>
              <svg width="14" height="14" aria-hidden="true">
                <rect class={series.class} width="14" height="14" />
              </svg>
              {series.label}
            </li>
          ))}
        </ul>
      ) : null}
      {width > 0 ? (
        <svg
          width={width}
          height={HEIGHT}
          viewBox={`0 0 ${width} ${HEIGHT}`}
          role="img"
          aria-label={spec.title}
          aria-describedby={summaryId}
        >
          <defs>
            {/* Server errors are hatched, not only red (the legend's swatch uses it too). */}
            <pattern id="chart-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect class="chart-hatch-ground" width="6" height="6" />
              <line class="chart-hatch-line" x1="0" y1="0" x2="0" y2="6" />
            </pattern>
          </defs>
          {ticks.map((tick) => (
            <g key={tick}>
              <line class="chart-grid" x1={PAD.left} x2={width - PAD.right} y1={y(tick)} y2={y(tick)} />
              <text class="chart-label" x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
                {spec.format(tick)}
              </text>
            </g>
          ))}
          {days.map((day, i) => (
            <g key={day.date}>
              {bars(day, i)}
              {labelled.has(i) ? (
                <text
                  class="chart-label"
                  x={PAD.left + i * slot + (i === 0 ? 0 : i === days.length - 1 ? slot : slot / 2)}
                  y={HEIGHT - 8}
                  text-anchor={i === 0 ? "start" : i === days.length - 1 ? "end" : "middle"}
                >
                  {formatDay(day.date)}
                </text>
              ) : null}
            </g>
          ))}
        </svg>
      ) : null}
      <p class="chart-summary" id={summaryId}>
        {days.length > 0 ? spec.summary(days) : "No days to show."}
      </p>
    </div>
  );
}
