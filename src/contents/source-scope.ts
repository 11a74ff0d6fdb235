/**
 * Domain lists as callers write them ("example.com", "*.example.com",
 * "https://example.com/blog", "example.com/docs") turned into one shape: a
 * host matches itself and its subdomains; a URL prefix matches URLs that
 * start with it (either scheme when none was given).
 */
import type { SourceScope } from "./queries.ts";

export type { SourceScope };

const HOST = /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** The scope entry for one caller string, or null when it is neither a domain nor a URL. */
export function parseScopeEntry(raw: string): { host: string } | { prefix: string[] } | null {
  let text = raw.trim().toLowerCase();
  if (!text) return null;
  if (text.startsWith("*.")) text = text.slice(2);
  const schemed = /^https?:\/\//.test(text);
  if (!schemed && text.includes("://")) return null;
  let url: URL;
  try {
    url = new URL(schemed ? text : `http://${text}`);
  } catch {
    return null;
  }
  if (url.username || url.password || (!HOST.test(url.hostname.replace(/\.$/, "")) && !url.hostname.startsWith("["))) return null;
  const host = url.hostname.replace(/\.$/, "").replace(/^www\./, "");
  const path = url.pathname === "/" ? "" : url.pathname;
  if (!path && !url.search && !url.port) return { host };
  const rest = `${url.host}${path}${url.search}`;
  return { prefix: schemed ? [`${url.protocol}//${rest}`] : [`http://${rest}`, `https://${rest}`] };
}

export function scopeOf(entries: string[]): { scope: SourceScope; invalid: number[] } {
  const scope: SourceScope = { hosts: [], prefixes: [] };
  const invalid: number[] = [];
  entries.forEach((entry, index) => {
    // A blank entry says nothing (n8n sends one for a trailing comma in "a.com, b.com, ").
    if (entry.trim() === "") return;
    const parsed = parseScopeEntry(entry);
    if (!parsed) invalid.push(index);
    else if ("host" in parsed) scope.hosts.push(parsed.host);
    else scope.prefixes.push(...parsed.prefix);
  });
  return { scope, invalid };
}

export function inScope(url: string, scope: SourceScope): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  if (scope.hosts.some((h) => host === h || host.endsWith(`.${h}`))) return true;
  const text = parsed.toString().toLowerCase();
  return scope.prefixes.some((prefix) => text.startsWith(prefix));
}

export const isEmptyScope = (scope: SourceScope) => scope.hosts.length === 0 && scope.prefixes.length === 0;
