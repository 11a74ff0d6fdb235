/**
 * Tokens per day as bars, drawn as inline SVG sized to its container in real
 * pixels (a scaled viewBox would shrink the labels to nothing on a phone).
 * The numbers are also given as a table: the drawing is for the eye only.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { formatCount, formatDay } from "../format.ts";
import type { UsageDay } from "../model.ts";

const HEIGHT = 200;
const PAD = { top: 12, right: 8, bottom: 28, left: 52 };

/** A round axis top: 1, 2 or 5 times a power of ten, at least the data's maximum. */
function niceMax(max: number): number {
  if (max <= 0) return 10;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

function compact(n: number): string {
  return new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 }).format(n);
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

export function UsageChart({ days }: { days: UsageDay[] }) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const max = niceMax(Math.max(0, ...days.map((d) => d.tokens)));
  const total = days.reduce((sum, d) => sum + d.tokens, 0);
  const busiest = days.reduce<UsageDay | null>((best, d) => (best === null || d.tokens > best.tokens ? d : best), null);
  const first = days[0];
  const last = days.at(-1);
  const summary =
    first && last
      ? `${formatCount(total)} tokens from ${formatDay(first.date)} to ${formatDay(last.date)}` +
        (busiest && busiest.tokens > 0
          ? `; the busiest day was ${formatDay(busiest.date)} with ${formatCount(busiest.tokens)} tokens.`
          : "; no tokens used.")
      : "No days to show.";

  const plotWidth = Math.max(0, width - PAD.left - PAD.right);
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = days.length > 0 ? plotWidth / days.length : 0;
  const barWidth = Math.max(1, slot * 0.7);
  const y = (value: number) => PAD.top + plotHeight - (value / max) * plotHeight;
  const ticks = [0, max / 2, max];
  const labelled = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1]);

  return (
    <div class="chart" ref={box}>
      {width > 0 ? (
        <svg
          width={width}
          height={HEIGHT}
          viewBox={`0 0 ${width} ${HEIGHT}`}
          role="img"
          aria-label="Tokens per day"
          aria-describedby="usage-chart-summary"
        >
          {ticks.map((tick) => (
            <g key={tick}>
              <line class="chart-grid" x1={PAD.left} x2={width - PAD.right} y1={y(tick)} y2={y(tick)} />
              <text class="chart-label" x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
                {compact(tick)}
              </text>
            </g>
          ))}
          {days.map((day, i) => {
            const x = PAD.left + i * slot + (slot - barWidth) / 2;
            const top = y(day.tokens);
            return (
              <g key={day.date}>
                <rect class="chart-bar" x={x} y={top} width={barWidth} height={Math.max(0, PAD.top + plotHeight - top)}>
                  <title>{`${formatDay(day.date)}: ${formatCount(day.tokens)} tokens, ${formatCount(day.calls)} calls`}</title>
                </rect>
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
            );
          })}
        </svg>
      ) : null}
      <p class="chart-summary" id="usage-chart-summary">
        {summary}
      </p>
    </div>
  );
}
