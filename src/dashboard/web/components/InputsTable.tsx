/** An endpoint's inputs as a table (name, type, required, default, description): a listing's, or a released version's. */
import type { EndpointInput } from "../model.ts";
import { Table, type Column } from "./Table.tsx";

const INPUT_COLUMNS: Column[] = [
  { label: "Name" },
  { label: "Type" },
  { label: "Required" },
  { label: "Default" },
  { label: "Description" },
];

export function InputsTable({ inputs }: { inputs: EndpointInput[] }) {
  if (inputs.length === 0) return <p>No inputs.</p>;
  return (
    <Table caption="Inputs" captionUnseen responsive columns={INPUT_COLUMNS}>
      {inputs.map((input) => (
        <tr key={input.name}>
          <td data-label="Name">
            <code>{input.name}</code>
          </td>
          <td data-label="Type">{input.type}</td>
          <td data-label="Required">
            {(input.required ?? true) && (input.default === null || input.default === undefined) ? "Yes" : "No"}
          </td>
          <td data-label="Default">
            {input.default === null || input.default === undefined ? <span class="muted">none</span> : <code>{String(input.default)}</code>}
          </td>
          <td data-label="Description">{input.description ?? ""}</td>
        </tr>
      ))}
    </Table>
  );
}
