/**
 * What a call of a listing costs, in words: the average of its recent calls when it has any (a designed endpoint's
 * tokens depend on its inputs, so real calls say more than an estimate), and always how calls are priced.
 */
import { formatCount, formatMoney } from "../../format.ts";
import type { ListingPricing } from "../../model.ts";

export function ListingPrice({ pricing }: { pricing: ListingPricing }) {
  const rate = `${formatMoney(pricing.per_million_tokens)} per million tokens`;
  if (pricing.average_cost === null) {
    return (
      <p class="price">
        <strong>Price:</strong> {rate}, counted on each call; no calls yet to show a typical cost.
      </p>
    );
  }
  const calls = pricing.sampled_calls === 1 ? "the last call" : `the last ${formatCount(pricing.sampled_calls)} calls`;
  return (
    <p class="price">
      <strong>Price:</strong> about {formatMoney(pricing.average_cost)} per call (average of {calls}:{" "}
      {formatCount(pricing.average_tokens ?? 0)} tokens) · {rate}
    </p>
  );
}
