/**
 * What the usage page shows, read from and written to its URL
 * (/dashboard/usage?days=7&key=key_…&route=POST+/v1/search&chart=cost): a link
 * to a filtered view opens that view, and Back steps through the filters.
 */
import { BASE } from "../../router.tsx";
import type { ChartKind } from "../../components/UsageChart.tsx";
import type { EndpointRecord } from "../../model.ts";

export const PERIODS = ["7", "30", "90"] as const;
export const CHARTS: ChartKind[] = ["calls", "tokens", "cost", "latency"];

export interface UsageView {
  days: (typeof PERIODS)[number];
  /** A key id, or "" for every key. */
  key: string;
  /** A route as usage names it ("POST /v1/search"), or "" for every route. */
  route: string;
  /** A designed endpoint version's id, or "" for all. */
  apiId: string;
  chart: ChartKind;
}

export function viewOf(search: URLSearchParams): UsageView {
  const days = search.get("days") ?? "";
  const chart = search.get("chart") ?? "";
  const apiId = search.get("api_id") ?? "";
  const key = search.get("key") ?? "";
  const route = search.get("route") ?? "";
  // What GET /v1/usage would refuse (its key_id and route patterns) is dropped here: the page shows everything instead.
  return {
    days: (PERIODS as readonly string[]).includes(days) ? (days as UsageView["days"]) : "30",
    key: /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : "",
    route: /^[ -~]{1,200}$/.test(route) ? route : "",
    apiId: /^[1-9][0-9]{0,9}$/.test(apiId) ? apiId : "",
    chart: (CHARTS as string[]).includes(chart) ? (chart as ChartKind) : "calls",
  };
}

/** The page's address for a view: the defaults are left out, so the plain page is /dashboard/usage. */
export function usageHref(view: UsageView): string {
  const search = new URLSearchParams();
  if (view.days !== "30") search.set("days", view.days);
  if (view.key) search.set("key", view.key);
  if (view.route) search.set("route", view.route);
  if (view.apiId) search.set("api_id", view.apiId);
  if (view.chart !== "calls") search.set("chart", view.chart);
  const text = search.toString();
  return `${BASE}/usage${text ? `?${text}` : ""}`;
}

/** GET /v1/usage's query for a view (the chart is the page's own). */
export function usageQuery(view: UsageView): string {
  const query = new URLSearchParams({ days: view.days });
  if (view.key) query.set("key_id", view.key);
  if (view.route) query.set("route", view.route);
  if (view.apiId) query.set("api_id", view.apiId);
  return query.toString();
}

/** One version of one of the account's endpoints, as the usage page names it: "Landmark facts v2 (live)". */
export interface EndpointVersion {
  id: string;
  label: string;
}

/** Each version of each endpoint, newest first within an endpoint: the endpoint filter's choices, and the recent calls' link names. */
export function endpointVersions(endpoints: EndpointRecord[]): EndpointVersion[] {
  return endpoints.flatMap((endpoint) =>
    [...endpoint.versions]
      .sort((a, b) => b.version - a.version)
      .map((v) => ({ id: String(v.id), label: `${endpoint.api_name} v${v.version}${v.is_live ? " (live)" : ""}` })),
  );
}
