/**
 * The answer bench's tables: each figure per split, then the failures by
 * kind of question and by type of field. With a base checkout every cell
 * reads "after / before".
 */
import type { PlainQuestion, StructuredQuestion } from "./answer-set.ts";
import { failureCounts, figures, type Figure, type PlainOutcome, type StructuredOutcome } from "./answer-outcomes.ts";
import { printTable, type Row } from "./report.ts";

type Runs = (label: string) => { plain: PlainOutcome[]; structured: StructuredOutcome[] };

function formatted(figure: Figure): string {
  if (Number.isNaN(figure.value)) return "-";
  if (figure.unit === "share") return `${(figure.value * 100).toFixed(1)}%`;
  return String(Math.round(figure.value));
}

const cell = (values: string[]) => values.join(" / ");

export function printFigures(
  labels: string[],
  splits: readonly string[],
  outcomesOf: (label: string, split: string) => [PlainOutcome[], StructuredOutcome[]],
): Record<string, Record<string, Figure[]>> {
  const by: Record<string, Record<string, Figure[]>> = {};
  for (const label of labels) {
    by[label] = {};
    for (const s of splits) by[label][s] = figures(...outcomesOf(label, s));
  }
  const names = by[labels[0]!]![splits[0]!]!.map((f) => f.name);
  const rows: Row[] = names.map((name, i) => {
    const row: Row = { figure: name };
    for (const s of splits) row[s] = cell(labels.map((label) => formatted(by[label]![s]![i]!)));
    return row;
  });
  printTable(`Answers without a model${labels.length > 1 ? ` (${labels.join(" / ")})` : ""}`, rows);
  return by;
}

const PLAIN_CAUSES = ["page not found", "no answer", "wrong sentence", "request failed"];
const FIELD_CAUSES = ["null though expected", "wrong value", "value though null expected", "request failed"];

function countRows(
  labels: string[],
  counted: Map<string, Map<string, Map<string, number>>>,
  first: string,
  columns: [string, string][],
): Row[] {
  const groups = [...new Set(labels.flatMap((l) => [...counted.get(l)!.keys()]))].sort();
  return groups.map((group) => {
    const row: Row = { [first]: group };
    for (const [column, key] of columns) row[column] = cell(labels.map((l) => String(counted.get(l)!.get(group)?.get(key) ?? 0)));
    return row;
  });
}

export function printFailures(labels: string[], runs: Runs): Record<string, unknown> {
  // "never offered" is also a "page not found": the search peer never ranked the page among the hits the app takes.
  const plainCauses = (o: PlainOutcome) =>
    o.cause === null ? [] : o.cause === "page not found" && !o.offered ? [o.cause, "never offered"] : [o.cause];
  const plainCounts = new Map(labels.map((l) => [l, failureCounts(runs(l).plain, (o) => o.kind, plainCauses)]));
  printTable(
    "Plain failures by kind of question (never offered: page not found, and not among the search hits the app takes)",
    countRows(labels, plainCounts, "kind", [
      ["questions", "total"],
      ["right", "right"],
      ...PLAIN_CAUSES.map((c): [string, string] => [c, c]),
      ["never offered", "never offered"],
    ]),
  );

  const fieldCounts = new Map(
    labels.map((l) => {
      const fields = runs(l).structured.flatMap((o) => o.fields);
      return [
        l,
        failureCounts(
          fields,
          (f) => f.group,
          (f) => (f.cause ? [f.cause] : []),
        ),
      ];
    }),
  );
  printTable(
    "Structured failures by type of field",
    countRows(labels, fieldCounts, "type", [["fields", "total"], ["right", "right"], ...FIELD_CAUSES.map((c): [string, string] => [c, c])]),
  );
  const plain = (m: Map<string, Map<string, number>>) => Object.fromEntries([...m].map(([k, v]) => [k, Object.fromEntries(v)]));
  return Object.fromEntries(labels.map((l) => [l, { plainByKind: plain(plainCounts.get(l)!), fieldsByType: plain(fieldCounts.get(l)!) }]));
}

export function printVerbose(labels: string[], asked: (PlainQuestion | StructuredQuestion)[], runs: Runs): void {
  const questions = new Map(asked.map((q) => [q.id, q]));
  for (const label of labels) {
    const { plain, structured } = runs(label);
    const failing = [...plain, ...structured].filter((o) => !o.ok);
    console.log(`\n${label}: ${failing.length} failing question(s)`);
    for (const o of failing) {
      const q = questions.get(o.id)!;
      const expected = JSON.stringify(q.expected);
      console.log(`\n${o.id} (${"kind" in o ? o.kind : "structured"}; ${o.causes.join("; ")}) ${Math.round(o.ms)} ms`);
      console.log(`  asked:    ${q.prompt}`);
      console.log(`  expected: ${expected.length > 300 ? `${expected.slice(0, 299)}…` : expected}`);
      console.log(`  answered: ${o.answer.length > 300 ? `${o.answer.slice(0, 299)}…` : o.answer}`);
    }
  }
}
