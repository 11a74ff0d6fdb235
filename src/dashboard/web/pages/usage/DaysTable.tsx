/** The charts' numbers as a table, in a closed disclosure: the charts are for the eye, this is for reading and copying. */
import { Table, type Column } from "../../components/Table.tsx";
import { formatCount, formatDay, formatMoney, formatMs } from "../../format.ts";
import type { Usage } from "../../model.ts";

const DAY_COLUMNS: Column[] = [
  { label: "Date" },
  { label: "Calls", numeric: true },
  { label: "4xx", numeric: true },
  { label: "5xx", numeric: true },
  { label: "Tokens", numeric: true },
  { label: "Cost", numeric: true },
  { label: "Median", numeric: true },
  { label: "95th pct.", numeric: true },
  { label: "Earnings", numeric: true },
];

export function DaysTable({ usage }: { usage: Usage }) {
  return (
    <details class="table-details">
      <summary>Show the numbers as a table</summary>
      <Table caption="Usage per day (errors by status class, latency in milliseconds)" columns={DAY_COLUMNS}>
        {[...usage.days].reverse().map((day) => (
          <tr key={day.date}>
            <th scope="row">{formatDay(day.date)}</th>
            <td class="num">{formatCount(day.calls)}</td>
            <td class="num">{formatCount(day.client_errors)}</td>
            <td class="num">{formatCount(day.server_errors)}</td>
            <td class="num">{formatCount(day.tokens)}</td>
            <td class="num">{formatMoney(day.cost)}</td>
            <td class="num">{formatMs(day.latency_p50_ms)}</td>
            <td class="num">{formatMs(day.latency_p95_ms)}</td>
            <td class="num">{formatMoney(day.earnings)}</td>
          </tr>
        ))}
      </Table>
    </details>
  );
}
