/**
 * Benchmarks print a table and write the same rows as JSON under
 * bench/results/, so runs can be compared; figures are quoted as ratios
 * against a baseline measured in the same run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Row = Record<string, string | number | boolean>;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(samples: number[]): { p50: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: samples.reduce((s, v) => s + v, 0) / samples.length };
}

export function printTable(title: string, rows: Row[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  // Small ratios (round trips per check with leases) keep two significant digits instead of printing as 0.000.
  const decimal = (v: number) => (Math.abs(v) < 0.01 ? v.toPrecision(2) : v.toFixed(3));
  const cell = (v: unknown) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : decimal(v)) : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\n${title}\n`);
  console.log(line(columns));
  console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const row of rows) console.log(line(columns.map((c) => cell(row[c]))));
}

export function writeResults(topic: string, data: unknown): string {
  const dir = fileURLToPath(new URL("../results/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  const path = `${dir}${topic}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  writeFileSync(path, JSON.stringify(data, null, 2));
  return path;
}
