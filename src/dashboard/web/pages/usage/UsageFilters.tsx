/**
 * The usage page's filters: period, key and route (or the endpoint a link
 * chose). Each change is a new URL, so Back undoes it and the address can be
 * shared. Keys are named (never shown in full); the routes offered are those
 * called in the period, and the endpoints are each version of the account's
 * designed endpoints (a call records the version it ran).
 */
import { Field } from "../../components/Field.tsx";
import type { ApiKey, Usage } from "../../model.ts";
import { Link, navigate } from "../../router.tsx";
import { usageHref, type EndpointVersion, type UsageView } from "./usage-view.ts";

export const keyLabel = (key: ApiKey) => `${key.name ?? key.prefix}${key.revoked_at ? " (revoked)" : ""}`;

export function UsageFilters({
  view,
  keys,
  routes,
  endpoints,
}: {
  view: UsageView;
  keys: ApiKey[];
  routes: Usage["routes"];
  endpoints: EndpointVersion[];
}) {
  const go = (change: Partial<UsageView>) => navigate(usageHref({ ...view, ...change }));
  // The chosen route stays offered while the period changes under it (it may have no calls in the new one).
  const routeChoices = routes.some((r) => r.route === view.route) || !view.route ? routes : [{ route: view.route, calls: 0 }, ...routes];
  const versions = endpoints;
  // An endpoint a link chose stays offered when it is not (or no longer) among the account's.
  const chosenElsewhere = view.apiId && !versions.some((v) => v.id === view.apiId);
  const filtered = view.key || view.route || view.apiId;
  return (
    <form class="card filters usage-filters" aria-label="Filter usage" onSubmit={(e) => e.preventDefault()}>
      <Field label="Period">
        {(control) => (
          <select {...control} value={view.days} onChange={(e) => go({ days: e.currentTarget.value as UsageView["days"] })}>
            <option value="7">Last 7 days</option>
            <option value="30">Last 30 days</option>
            <option value="90">Last 90 days</option>
          </select>
        )}
      </Field>
      <Field label="Key">
        {(control) => (
          <select {...control} value={view.key} onChange={(e) => go({ key: e.currentTarget.value })}>
            <option value="">All keys and the dashboard</option>
            {keys.map((key) => (
              <option key={key.id} value={key.id}>
                {keyLabel(key)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Route or endpoint">
        {(control) => (
          <select
            {...control}
            value={view.apiId ? `api:${view.apiId}` : view.route}
            onChange={(e) => {
              const value = e.currentTarget.value;
              go(value.startsWith("api:") ? { route: "", apiId: value.slice(4) } : { route: value, apiId: "" });
            }}
          >
            <option value="">All routes</option>
            <optgroup label="Routes called in the period">
              {routeChoices.map((r) => (
                <option key={r.route} value={r.route}>
                  {r.route} ({r.calls})
                </option>
              ))}
            </optgroup>
            {versions.length > 0 || chosenElsewhere ? (
              <optgroup label="Your endpoints">
                {chosenElsewhere ? <option value={`api:${view.apiId}`}>Endpoint version {view.apiId}</option> : null}
                {versions.map((v) => (
                  <option key={v.id} value={`api:${v.id}`}>
                    {v.label}
                  </option>
                ))}
              </optgroup>
            ) : null}
          </select>
        )}
      </Field>
      {filtered ? (
        <p class="filters-clear">
          <Link href={usageHref({ ...view, key: "", route: "", apiId: "" })}>Clear filters</Link>
        </p>
      ) : null}
    </form>
  );
}
