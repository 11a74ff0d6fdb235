/**
 * max_results (SPEC 4.1) cuts every top-level list of a structured answer:
 * one rule for a search node's answer and for an endpoint's whole response,
 * so the model's own count never decides it.
 */
export function truncateLists(value: Record<string, unknown>, maxResults: number | undefined): Record<string, unknown> {
  if (!maxResults) return value;
  return Object.fromEntries(Object.entries(value).map(([field, item]) => [field, Array.isArray(item) ? item.slice(0, maxResults) : item]));
}
