/**
 * A webhook URL as its owner gives it (a task's, a batch's, a monitor's),
 * checked before anything is stored: https (an operator's FETCH_ALLOW_HOSTS
 * excepted, as for page reads), no credentials, no name or literal address
 * that only means something inside a network. A name is resolved, and its
 * addresses judged, at each delivery (webhooks/deliver.ts): what it
 * resolves to may change.
 */
import { addressRefusal, isIpLiteral } from "../contents/egress/ip-address.ts";
import { checkUrlPolicy, type EgressPolicy, isExempt, parseRequestedUrl } from "../contents/egress/policy.ts";
import { invalid, ServiceError } from "../errors.ts";

export const WEBHOOK_URL_MAX = 2_048;

/** The egress policy a webhook URL is judged by (FETCH_ALLOW_HOSTS and the allowed ports): page reads' own. */
export type WebhookUrlPolicy = EgressPolicy;

export function checkWebhookUrl(raw: string, policy: EgressPolicy, loc: (string | number)[]): string {
  if (raw.length > WEBHOOK_URL_MAX) throw invalid(loc, `URL must be at most ${WEBHOOK_URL_MAX} characters`, "string_too_long");
  const url = parseRequestedUrl(raw, loc);
  const exempt = isExempt(policy, url);
  if (url.protocol !== "https:" && !exempt) throw invalid(loc, "a webhook URL must be https", "url_scheme");
  try {
    checkUrlPolicy(policy, url);
  } catch (error) {
    if (error instanceof ServiceError)
      throw invalid(loc, "the webhook URL's host is not a public address this service may call", "url_host");
    throw error;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!exempt && isIpLiteral(host) && addressRefusal(host) !== null)
    throw invalid(loc, "the webhook URL's host is not a public address this service may call", "url_host");
  return url.toString();
}
