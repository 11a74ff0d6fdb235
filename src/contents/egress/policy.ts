/**
 * What the service may fetch, before any DNS: http and https only, no
 * credentials, the usual ports, and no names that only mean something
 * inside a network. FETCH_ALLOW_HOSTS exempts exact `host:port` pairs from
 * the private-address rules (tests, an operator's internal site); nothing
 * else does.
 */
import { invalid, ServiceError } from "../../errors.ts";

export interface EgressPolicy {
  /** `host:port`, lowercase, IPv6 in brackets. */
  allowHosts: ReadonlySet<string>;
  allowedPorts: ReadonlySet<number>;
}

const DENIED_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".corp", ".intranet"];

export const blocked = () => new ServiceError("fetch_blocked", "the URL's host is not a public address this service may fetch");

/** The caller's URL checked for shape: a 422 naming the rule it breaks. `loc` is where it came from. */
export function parseRequestedUrl(raw: string, loc: (string | number)[]): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid(loc, "URL is not valid: it must be an absolute http or https URL", "url_parsing");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(loc, "URL scheme must be http or https", "url_scheme");
  if (url.username || url.password) throw invalid(loc, "URL must not contain credentials", "url_credentials");
  if (!url.hostname) throw invalid(loc, "URL must have a host", "url_parsing");
  url.hash = "";
  return url;
}

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

export function hostKey(url: URL): string {
  return `${url.hostname.toLowerCase()}:${portOf(url)}`;
}

export function isExempt(policy: EgressPolicy, url: URL): boolean {
  return policy.allowHosts.has(hostKey(url));
}

/** Throws fetch_blocked for names and ports that are never fetched (unless exempt). */
export function checkUrlPolicy(policy: EgressPolicy, url: URL): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw blocked();
  if (url.username || url.password) throw blocked();
  if (isExempt(policy, url)) return;
  if (!policy.allowedPorts.has(portOf(url))) throw blocked();
  const name = url.hostname.toLowerCase().replace(/\.$/, "");
  if (name.startsWith("[")) return; // IPv6 literal: judged by address
  if (/^[\d.]+$/.test(name)) return; // IPv4 literal (the URL parser has normalised it): judged by address
  if (name === "localhost" || DENIED_SUFFIXES.some((suffix) => name.endsWith(suffix))) throw blocked();
  // A single label is never a public site; resolv.conf search domains could make it an internal one.
  if (!name.includes(".")) throw blocked();
}
