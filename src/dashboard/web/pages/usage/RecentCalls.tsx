/**
 * The latest calls as a compact list (a table of eight columns was a screen
 * a call on a phone): the first few, the rest behind "Show all". Each says
 * how it ended, which key made it, how long it took, its request id (to
 * quote to support or find in logs) and what it ran.
 */
import { useState } from "preact/hooks";
import { CopyButton } from "../../components/CopyButton.tsx";
import { formatCount, formatMoney, formatMs, formatTime } from "../../format.ts";
import type { RecentCall } from "../../model.ts";
import { Link } from "../../router.tsx";
import { endpointHref } from "../EndpointsPage.tsx";
import { listingHref } from "../MarketplacePage.tsx";

const FIRST = 5;

/** Who made a call: its key's name (or prefix) when the key is known, the dashboard for a session. */
export type KeyNames = Map<string, string>;

function caller(call: RecentCall, keys: KeyNames): string {
  if (call.key_id === null) return "Dashboard";
  return keys.get(call.key_id) ?? "A deleted key";
}

/** What a call ran, by name where the endpoint version is one of the account's (api_id to "Landmark facts v2"). */
export type EndpointNames = Map<string, string>;

function Call({ call, keys, endpoints }: { call: RecentCall; keys: KeyNames; endpoints: EndpointNames }) {
  const failed = call.status >= 400;
  return (
    <li class="recent-call">
      <div class="recent-call-head">
        <span class={`status-code${failed ? " bad" : ""}`}>
          {call.status}
          {failed ? <span class="visually-hidden"> (failed)</span> : null}
        </span>
        <code class="wrap">{call.route}</code>
        <span class="muted recent-call-time">{formatTime(call.at)}</span>
      </div>
      <p class="recent-call-facts">
        <span>{caller(call, keys)}</span>
        <span>{formatMs(call.latency_ms)}</span>
        <span>{formatCount(call.tokens)} tokens</span>
        <span>{formatMoney(call.cost)}</span>
        {call.api_id !== null ? (
          <Link href={endpointHref(call.api_id)}>{endpoints.get(String(call.api_id)) ?? `Endpoint ${call.api_id}`}</Link>
        ) : null}
        {call.public_stub !== null ? <Link href={listingHref(call.public_stub)}>Listing {call.public_stub}</Link> : null}
      </p>
      {call.request_id ? (
        <p class="recent-call-id">
          <span class="muted">Request</span> <code class="small-id">{call.request_id}</code>{" "}
          <CopyButton text={call.request_id} label="Copy id" />
        </p>
      ) : null}
    </li>
  );
}

export function RecentCalls({ recent, keys, endpoints }: { recent: RecentCall[]; keys: KeyNames; endpoints: EndpointNames }) {
  const [all, setAll] = useState(false);
  if (recent.length === 0) return <p>No calls yet.</p>;
  const shown = all ? recent : recent.slice(0, FIRST);
  return (
    <>
      <ul class="recent-calls" id="recent-calls-list" aria-labelledby="recent-heading">
        {shown.map((call, i) => (
          <Call key={`${call.at}-${call.request_id ?? i}`} call={call} keys={keys} endpoints={endpoints} />
        ))}
      </ul>
      {recent.length > FIRST ? (
        <button type="button" class="secondary small" aria-expanded={all} aria-controls="recent-calls-list" onClick={() => setAll(!all)}>
          {all ? `Show the first ${FIRST}` : `Show all ${recent.length} calls`}
        </button>
      ) : null}
    </>
  );
}
