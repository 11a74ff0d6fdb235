/**
 * Plans, derived from the account on every call so a change (credit added,
 * an enterprise contract) applies at once: a custom limit makes an account
 * Enterprise, a positive balance makes it Pro, anything else is Free.
 */
export type PlanName = "free" | "pro" | "enterprise";

export interface Plan {
  name: PlanName;
  label: string;
  perMinute: number;
}

export const FREE_PER_MINUTE = 10;
export const PRO_PER_MINUTE = 100;
export const ENTERPRISE_MIN_PER_MINUTE = 5_000;
export const ENTERPRISE_MAX_PER_MINUTE = 1_000_000;

export function planFor(account: { balanceMicros: number; customRateLimit: number | null }): Plan {
  if (account.customRateLimit !== null && account.customRateLimit > 0) {
    return { name: "enterprise", label: "Enterprise", perMinute: account.customRateLimit };
  }
  if (account.balanceMicros > 0) return { name: "pro", label: "Pro", perMinute: PRO_PER_MINUTE };
  return { name: "free", label: "Free (Starter)", perMinute: FREE_PER_MINUTE };
}
