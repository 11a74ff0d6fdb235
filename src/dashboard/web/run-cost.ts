/**
 * What a run cost, as the account was charged: its usage record, found by
 * the call's request id among the account's recent calls. The answer itself
 * does not carry it (the price is applied when the usage is written, which
 * is done before the answer or the stream's close reaches the page).
 */
import { api } from "./api.ts";
import type { Usage } from "./model.ts";

/** The run's cost in dollars, or null when its record is not among the recent calls (or usage cannot be read). */
export async function runCost(requestId: string | null | undefined): Promise<number | null> {
  if (!requestId) return null;
  try {
    const usage = await api.get<Usage>("/v1/usage?days=1");
    return usage.recent.find((call) => call.request_id === requestId)?.cost ?? null;
  } catch {
    // The details show the rest without it.
    return null;
  }
}
