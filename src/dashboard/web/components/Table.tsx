/**
 * A table in its scrolling wrapper, with its caption and its header row. A
 * responsive table stacks each row on a narrow screen, every cell labelled
 * by its data-label.
 */
import type { ComponentChildren } from "preact";

export interface Column {
  label: string;
  /** Right-aligned, as figures read best. */
  numeric?: boolean;
  /** Named for screen readers only (a column of buttons). */
  unseen?: boolean;
}

interface TableProps {
  caption: string;
  /** The caption is for screen readers only: the heading above already names the table. */
  captionUnseen?: boolean;
  responsive?: boolean;
  columns: Column[];
  /** The rows. */
  children: ComponentChildren;
}

export function Table({ caption, captionUnseen, responsive, columns, children }: TableProps) {
  return (
    <div class="table-wrap">
      <table class={responsive ? "responsive" : undefined}>
        <caption class={captionUnseen ? "visually-hidden" : undefined}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" class={column.numeric ? "num" : undefined}>
                {column.unseen ? <span class="visually-hidden">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
