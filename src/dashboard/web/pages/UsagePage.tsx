/**
 * Plan and usage: the plan and its balance, then the account's usage for a
 * period, narrowed by key and by route or endpoint (the view is in the URL):
 * totals, one chart at a time (calls and errors, tokens, cost, latency) with
 * its numbers in a table, earnings as a publisher, and the latest calls.
 */
import { api } from "../api.ts";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { GetStarted } from "../components/GetStarted.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { CHART_TITLES, UsageChart } from "../components/UsageChart.tsx";
import { useLoad } from "../components/useLoad.ts";
import { formatCount, formatMoney, formatMs } from "../format.ts";
import type { ApiKey, EndpointRecord, Session, Usage } from "../model.ts";
import { navigate } from "../router.tsx";
import { useSession } from "../session.ts";
import { DaysTable } from "./usage/DaysTable.tsx";
import { PlanCard } from "./usage/PlanCard.tsx";
import { RecentCalls } from "./usage/RecentCalls.tsx";
import { keyLabel, UsageFilters } from "./usage/UsageFilters.tsx";
import { CHARTS, endpointVersions, usageHref, usageQuery, viewOf, type UsageView } from "./usage/usage-view.ts";

const CHART_NAMES = { calls: "Calls", tokens: "Tokens", cost: "Cost", latency: "Latency" } as const;

function Totals({ usage }: { usage: Usage }) {
  const { totals } = usage;
  return (
    <dl class="facts totals">
      <div>
        <dt>Calls</dt>
        <dd>{formatCount(totals.calls)}</dd>
      </div>
      <div>
        <dt>Errors (4xx / 5xx)</dt>
        <dd>
          {formatCount(totals.client_errors)} / {formatCount(totals.server_errors)}
        </dd>
      </div>
      <div>
        <dt>Tokens</dt>
        <dd>{formatCount(totals.tokens)}</dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{formatMoney(totals.cost)}</dd>
      </div>
      <div>
        <dt>Latency (median / 95th)</dt>
        <dd>
          {formatMs(totals.latency_p50_ms)} / {formatMs(totals.latency_p95_ms)}
        </dd>
      </div>
    </dl>
  );
}

/** One chart at a time: a row of toggle buttons picks it (kept in the URL, replacing the entry: a chart is not a step back). */
function ChartPicker({ view }: { view: UsageView }) {
  return (
    <div class="chart-picker" role="group" aria-label="Chart">
      {CHARTS.map((kind) => (
        <button
          key={kind}
          type="button"
          class="secondary small"
          aria-pressed={view.chart === kind}
          title={CHART_TITLES[kind]}
          onClick={() => navigate(usageHref({ ...view, chart: kind }), { replace: true })}
        >
          {CHART_NAMES[kind]}
        </button>
      ))}
    </div>
  );
}

export function UsagePage({ search }: { search: URLSearchParams }) {
  const { session, setAccount } = useSession();
  const view = viewOf(search);
  // The session answer carries the account too and costs no call of the per-minute limit.
  const account = useLoad(async (signal) => {
    const fresh = await api.get<Session>("/auth/session", { signal });
    setAccount(fresh.account);
    return fresh.account;
  }, []);
  const keys = useLoad((signal) => api.get<{ keys: ApiKey[] }>("/v1/keys", { signal }), []);
  const endpoints = useLoad((signal) => api.get<EndpointRecord[]>("/v1/design-api", { signal }), []);
  const query = usageQuery(view);
  const usage = useLoad((signal) => api.get<Usage>(`/v1/usage?${query}`, { signal }), [query]);
  const data = usage.data;
  const keyList = keys.data?.keys ?? [];
  const keyNames = new Map(keyList.map((key) => [key.id, keyLabel(key)]));
  const versions = endpointVersions(endpoints.data ?? []);
  const endpointNames = new Map(versions.map((v) => [v.id, v.label]));
  return (
    <section>
      <PageHeading title="Plan and usage" />
      <GetStarted />
      <ErrorMessage error={account.error} />
      <PlanCard account={session.account} />

      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage</h2>
        <UsageFilters view={view} keys={keyList} routes={data?.routes ?? []} endpoints={versions} />
        <ErrorMessage error={usage.error} />
        {data ? (
          <>
            <Totals usage={data} />
            <p class="hint">
              Calls made with your API keys, and research run from this dashboard.
              {data.totals.dashboard_calls > 0
                ? ` Not counted: the dashboard's own ${formatCount(data.totals.dashboard_calls)} ${data.totals.dashboard_calls === 1 ? "request" : "requests"} (reading keys, listings, this page).`
                : ""}
            </p>
            <div class="section-head">
              <h3 id="chart-heading">{CHART_TITLES[view.chart]}</h3>
              <ChartPicker view={view} />
            </div>
            <UsageChart days={data.days} kind={view.chart} />
            <DaysTable usage={data} />
          </>
        ) : usage.loading ? (
          <p>Loading usage…</p>
        ) : null}
      </section>

      <section aria-labelledby="earnings-heading">
        <h2 id="earnings-heading">Publisher earnings</h2>
        {data ? (
          <p>
            Your published endpoints earned <strong>{formatMoney(data.totals.earnings)}</strong> from{" "}
            {formatCount(data.totals.earning_calls)} paid {data.totals.earning_calls === 1 ? "call" : "calls"} in this period.
          </p>
        ) : null}
      </section>

      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent calls</h2>
        {data ? <RecentCalls recent={data.recent} keys={keyNames} endpoints={endpointNames} /> : null}
      </section>
    </section>
  );
}
