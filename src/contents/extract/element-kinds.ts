/**
 * Families of HTML elements that several passes of the extractor name
 * (pruning, the containers' prose, the HTML and text renderers, table
 * cells), each written once, so that no pass can miss a member the others have.
 */

/** `<h1>` to `<h6>`. */
export const HEADINGS: readonly string[] = ["h1", "h2", "h3", "h4", "h5", "h6"];
const HEADING_SET = new Set(HEADINGS);
export const isHeading = (tag: string) => HEADING_SET.has(tag);

/** Elements that embed another document or a plug-in: nothing in them is the page's own text. */
export const EMBEDDED: readonly string[] = ["iframe", "frame", "frameset", "object", "embed", "applet"];

/** Lists: unordered, ordered and definition lists. */
export const LISTS: readonly string[] = ["ul", "ol", "dl"];

/** What lists hold: items, and a definition list's terms and details. */
export const LIST_ITEMS: readonly string[] = ["li", "dt", "dd"];

/** A table's cells, data and header. */
export const TABLE_CELLS: readonly string[] = ["td", "th"];
