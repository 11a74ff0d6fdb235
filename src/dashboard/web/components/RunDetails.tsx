/**
 * How a run went, beside its answer: time, tokens, cost, the queries it made
 * and how each search provider fared (the answer's `info`). Collapsed behind
 * one summary line, so a phone shows the answer first.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { formatCount, formatMoney, formatMs } from "../format.ts";
import type { RunInfo } from "../model.ts";
import { runCost } from "../run-cost.ts";
import { OUTCOME_WORDS, runSummary, runView, summariseProvider } from "../run-info.ts";

/** The cost while it is looked up (undefined), once found, or null when it cannot be told here. */
function useRunCost(requestId: string | null | undefined): number | null | undefined {
  const [cost, setCost] = useState<number | null | undefined>(requestId ? undefined : null);
  useEffect(() => {
    if (!requestId) {
      setCost(null);
      return;
    }
    let current = true;
    setCost(undefined);
    void runCost(requestId).then((found) => current && setCost(found));
    return () => {
      current = false;
    };
  }, [requestId]);
  return cost;
}

function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

interface RunDetailsProps {
  info: RunInfo;
  /** The call's request id: its usage record says what it cost. Without it (a task's result) the cost is on the Usage page. */
  requestId?: string | null;
  /** How long the call took as the page measured it: the time of a run whose info does not tell it (an endpoint's). */
  elapsedMs?: number | null;
}

export function RunDetails({ info, requestId = info.request_id, elapsedMs = null }: RunDetailsProps) {
  const cost = useRunCost(requestId);
  const view = runView(info, elapsedMs);
  const providers = view.providers.map(summariseProvider);
  const { stages, queries, totalMs: total } = view;
  const pages = info.pages;
  return (
    <details class="run-details">
      <summary>
        Run details<span class="visually-hidden">:</span>{" "}
        <span class="run-summary">{runSummary(view, info.token_usage, cost ?? null)}</span>
      </summary>
      <dl class="run-facts">
        {total !== null ? (
          <Fact term="Time">
            {formatMs(total)}
            {stages.length > 0 ? <span class="muted"> ({stages.map(([stage, ms]) => `${stage} ${formatMs(ms)}`).join(", ")})</span> : null}
          </Fact>
        ) : null}
        <Fact term="Tokens">
          {formatCount(info.token_usage)}
          {info.tokens ? (
            <span class="muted">
              {" "}
              ({formatCount(info.tokens.prompt)} prompt, {formatCount(info.tokens.completion)} completion)
            </span>
          ) : null}
        </Fact>
        <Fact term="Cost">{cost === undefined ? "Looking it up…" : cost === null ? "Shown on the Usage page" : formatMoney(cost)}</Fact>
        {info.model ? <Fact term="Model">{info.model}</Fact> : null}
        {pages || info.sources_found !== undefined ? (
          <Fact term="Pages">
            {[
              info.sources_found !== undefined ? `${formatCount(info.sources_found)} found` : null,
              pages ? `${formatCount(pages.read + pages.from_cache)} read (${formatCount(pages.from_cache)} from cache)` : null,
              pages && pages.failed > 0 ? `${formatCount(pages.failed)} failed` : null,
              pages && pages.cut.length > 0 ? `${formatCount(pages.cut.length)} too slow` : null,
            ]
              .filter(Boolean)
              .join(" · ")}
          </Fact>
        ) : null}
        {queries.length > 0 ? (
          <Fact term={queries.length === 1 ? "Query" : `Queries (${queries.length})`}>
            <ol class="queries">
              {queries.map((query, i) => (
                <li key={i}>{query}</li>
              ))}
            </ol>
          </Fact>
        ) : null}
      </dl>
      {providers.length > 0 ? (
        <div class="table-wrap">
          <table class="providers">
            <caption>Search providers</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">How it fared</th>
              </tr>
            </thead>
            <tbody>
              {providers.map((provider) => (
                <tr key={provider.name}>
                  <th scope="row">{provider.name}</th>
                  <td>
                    <strong class={`outcome outcome-${provider.outcome}`}>{OUTCOME_WORDS[provider.outcome]}</strong>: {provider.words}
                    {provider.error ? <span class="provider-error">{provider.error}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {info.notes && info.notes.length > 0 ? (
        <ul class="run-notes" aria-label="Notes">
          {info.notes.map((note, i) => (
            <li key={i}>{note}</li>
          ))}
        </ul>
      ) : null}
    </details>
  );
}
