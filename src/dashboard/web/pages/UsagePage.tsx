/** Plan and usage: the plan and its limit, the balance and adding credit, tokens by day, recent calls, earnings. */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, StatusMessage } from "../components/ErrorMessage.tsx";
import { Field, TextInput } from "../components/Field.tsx";
import { GetStarted } from "../components/GetStarted.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { SubmitButton } from "../components/SubmitButton.tsx";
import { Table, type Column } from "../components/Table.tsx";
import { UsageChart } from "../components/UsageChart.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { formatCount, formatDay, formatMoney, formatTime } from "../format.ts";
import type { Account, Session, Usage } from "../model.ts";
import { Link } from "../router.tsx";
import { endpointHref } from "./EndpointsPage.tsx";
import { useSession } from "../session.ts";

function PlanCard({ account }: { account: Account }) {
  const { setAccount } = useSession();
  const [amount, setAmount] = useState("");
  const credit = useAction();
  const addCredit = (e: Event) => {
    e.preventDefault();
    void credit.run(async () => {
      // Sent as typed: an empty or odd amount gets the service's own message.
      const value = amount.trim() === "" ? null : Number(amount);
      const updated = await api.post<Account>("/dashboard/api/credit", { amount: value });
      setAccount(updated);
      setAmount("");
      credit.setStatus(`Credit added. Your balance is now ${formatMoney(updated.balance)} (${updated.plan_label}).`);
    });
  };
  return (
    <section class="card" aria-labelledby="plan-heading">
      <h2 id="plan-heading">Plan</h2>
      <dl class="facts">
        <div>
          <dt>Plan</dt>
          <dd>{account.plan_label}</dd>
        </div>
        <div>
          <dt>Rate limit</dt>
          <dd>{formatCount(account.rate_limit_per_minute)} calls per minute</dd>
        </div>
        <div>
          <dt>Balance</dt>
          <dd>{formatMoney(account.balance)}</dd>
        </div>
      </dl>
      {account.plan === "free" ? <p class="hint">Adding any credit moves the account to Pro (100 calls per minute) at once.</p> : null}
      <form class="inline-form compact" onSubmit={addCredit} aria-label="Add credit">
        <TextInput
          label="Amount (US dollars)"
          type="number"
          inputMode="decimal"
          step="0.01"
          value={amount}
          onValue={setAmount}
          errors={credit.issues("amount")}
        />
        <SubmitButton busy={credit.busy} busyLabel="Adding…">
          Add credit
        </SubmitButton>
      </form>
      <ErrorMessage error={credit.error} />
      <StatusMessage text={credit.status} />
    </section>
  );
}

const DAY_COLUMNS: Column[] = [
  { label: "Date" },
  { label: "Calls", numeric: true },
  { label: "Tokens", numeric: true },
  { label: "Cost", numeric: true },
  { label: "Earnings", numeric: true },
];

function DaysTable({ usage }: { usage: Usage }) {
  return (
    <details class="table-details">
      <summary>Show the numbers as a table</summary>
      <Table caption="Usage per day" columns={DAY_COLUMNS}>
        {[...usage.days].reverse().map((day) => (
          <tr key={day.date}>
            <th scope="row">{formatDay(day.date)}</th>
            <td class="num">{formatCount(day.calls)}</td>
            <td class="num">{formatCount(day.tokens)}</td>
            <td class="num">{formatMoney(day.cost, true)}</td>
            <td class="num">{formatMoney(day.earnings, true)}</td>
          </tr>
        ))}
      </Table>
    </details>
  );
}

const RECENT_COLUMNS: Column[] = [
  { label: "Time" },
  { label: "Route" },
  { label: "Status", numeric: true },
  { label: "Tokens", numeric: true },
  { label: "Cost", numeric: true },
];

function RecentCalls({ recent }: { recent: Usage["recent"] }) {
  if (recent.length === 0) return <p>No calls yet.</p>;
  return (
    <Table caption="Recent calls" captionUnseen responsive columns={RECENT_COLUMNS}>
      {recent.map((call, i) => (
        <tr key={`${call.at}-${call.request_id ?? i}`}>
          <td data-label="Time">{formatTime(call.at)}</td>
          <td data-label="Route">
            <code class="wrap">{call.route}</code>
            {call.api_id !== null ? (
              <>
                {" "}
                <Link href={endpointHref(call.api_id)}>endpoint {call.api_id}</Link>
              </>
            ) : null}
          </td>
          <td data-label="Status" class={`num ${call.status >= 400 ? "bad" : ""}`}>
            {call.status}
          </td>
          <td data-label="Tokens" class="num">
            {formatCount(call.tokens)}
          </td>
          <td data-label="Cost" class="num">
            {formatMoney(call.cost, true)}
          </td>
        </tr>
      ))}
    </Table>
  );
}

export function UsagePage() {
  const { session, setAccount } = useSession();
  const [days, setDays] = useState("30");
  // The session answer carries the account too and costs no call of the per-minute limit.
  const account = useLoad(async (signal) => {
    const fresh = await api.get<Session>("/auth/session", { signal });
    setAccount(fresh.account);
    return fresh.account;
  }, []);
  const usage = useLoad((signal) => api.get<Usage>(`/v1/usage?days=${days}`, { signal }), [days]);
  const data = usage.data;
  return (
    <section>
      <PageHeading title="Plan and usage" />
      <GetStarted />
      <ErrorMessage error={account.error} />
      <PlanCard account={session.account} />

      <section aria-labelledby="usage-heading">
        <div class="section-head">
          <h2 id="usage-heading">Tokens per day</h2>
          <Field label="Period" class="short">
            {(control) => (
              <select {...control} value={days} onChange={(e) => setDays(e.currentTarget.value)}>
                <option value="7">Last 7 days</option>
                <option value="30">Last 30 days</option>
                <option value="90">Last 90 days</option>
              </select>
            )}
          </Field>
        </div>
        <ErrorMessage error={usage.error} />
        {data ? (
          <>
            <dl class="facts totals">
              <div>
                <dt>Calls</dt>
                <dd>{formatCount(data.totals.calls)}</dd>
              </div>
              <div>
                <dt>Tokens</dt>
                <dd>{formatCount(data.totals.tokens)}</dd>
              </div>
              <div>
                <dt>Cost</dt>
                <dd>{formatMoney(data.totals.cost, true)}</dd>
              </div>
            </dl>
            <p class="hint">
              Calls made with your API keys, and research run from this dashboard.
              {data.totals.dashboard_calls > 0
                ? ` Not counted: the dashboard's own ${formatCount(data.totals.dashboard_calls)} ${data.totals.dashboard_calls === 1 ? "request" : "requests"} (reading keys, listings, this page).`
                : ""}
            </p>
            <UsageChart days={data.days} />
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
            Your published endpoints earned <strong>{formatMoney(data.totals.earnings, true)}</strong> from{" "}
            {formatCount(data.totals.earning_calls)} paid {data.totals.earning_calls === 1 ? "call" : "calls"} in this period.
          </p>
        ) : null}
      </section>

      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent calls</h2>
        {data ? <RecentCalls recent={data.recent} /> : null}
      </section>
    </section>
  );
}
