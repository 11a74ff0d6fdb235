/**
 * One URL per page, however providers spell it: lowercase host without
 * `www.`, no fragment, no tracking parameters, no trailing slash, default
 * ports dropped. Used to deduplicate hits across queries and providers.
 */
const TRACKING = /^(utm_[a-z_]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi|ref_src|igshid|yclid)$/i;

export function canonicalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  url.hash = "";
  url.hostname = url.hostname.toLowerCase().replace(/^www\./, "");
  for (const name of [...url.searchParams.keys()]) if (TRACKING.test(name)) url.searchParams.delete(name);
  url.searchParams.sort();
  let text = `${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname.replace(/\/+$/, "") || "/"}${url.search}`;
  if (text.endsWith("/")) text = text.slice(0, -1);
  return text;
}
