/**
 * What the field rules make of one asked-for fact: a name, a shape, and
 * whether it is a list. Its own module because reading an item (field-item)
 * and turning it into a series (series) both build fields, and the series
 * rule is called by the item rule: the type sits below both.
 */
import type { OutputShape } from "../../../research/output-format.ts";
import type { Scalar } from "./words.ts";

/** Where a field sits: at the top (or in one object), or in the rows of a list. */
export type Place = "top" | "row";

export interface Field {
  name: string;
  shape: OutputShape;
  /** A list of things: "with their prices" after it describes each row. */
  collection: boolean;
  /** The name's last word, singular: decides whether rows are identified by name or title. */
  head: string;
  /** What identifies each row when not a name or title: the date of a series, with its type. */
  key?: [string, Scalar];
}
