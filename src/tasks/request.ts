/**
 * A task's body checked as its synchronous call would check it, before
 * anything is queued: a search's body by the search's own rules, an
 * endpoint's inputs against the version that would run (its 404, 400 or 422
 * now, not in the task's result later). Unknown fields are refused.
 */
import { InvalidInput, invalid, type ValidationIssue } from "../errors.ts";
import type { EndpointInput } from "../endpoints/model.ts";
import { calledVersion } from "../endpoints/reads.ts";
import { resolveCall } from "../endpoints/runtime/call-inputs.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { findCallable } from "../marketplace/listings.ts";
import { isGiven } from "../research/request.ts";
import { checkSearchBody, type RunDeps } from "../research/run/hold.ts";
import { checkWebhookUrl, type WebhookUrlPolicy } from "../webhooks/url.ts";
import { METADATA_MAX_BYTES, TaskCreateBody, type TaskCreate, type TaskKind } from "./model.ts";

const SEARCH_FIELDS = ["prompt", "image", "source_whitelist", "source_blacklist", "output_format"] as const;
const KNOWN = new Set(Object.keys(TaskCreateBody.properties));

/** What a task runs, as stored: its kind, the endpoint it names, and its search body or inputs as JSON text. */
export interface TaskWork {
  kind: TaskKind;
  target: string | null;
  request: string;
  metadata: string | null;
  webhookUrl: string | null;
}

export async function checkTaskBody(
  deps: { runs: RunDeps; endpoints: EndpointsContext; egress: WebhookUrlPolicy },
  accountId: string,
  body: TaskCreate,
): Promise<TaskWork> {
  refuseUnknown(body as Record<string, unknown>, KNOWN);
  const metadata = checkMetadata(body.metadata);
  const webhookUrl = isGiven(body.webhook) ? checkWebhookUrl(body.webhook.url, deps.egress, ["body", "webhook", "url"]) : null;
  return { ...(await checkTaskWork(deps, accountId, body)), metadata, webhookUrl };
}

/** Refuses the fields of `body` (at `loc`) that are not in `known`, each by name (422). */
export function refuseUnknown(body: Record<string, unknown>, known: ReadonlySet<string>, loc: string[] = ["body"]): void {
  const issues: ValidationIssue[] = Object.keys(body)
    .filter((name) => !known.has(name))
    .map((name) => ({ loc: [...loc, name], msg: "Extra inputs are not permitted", type: "extra_forbidden" }));
  if (issues.length > 0) throw new InvalidInput(issues);
}

/**
 * What a body runs, checked as its synchronous call would check it: exactly one of prompt, endpoint or published,
 * and only the fields of that kind. A task's and a monitor's body share it; their other fields are theirs to check.
 */
export async function checkTaskWork(
  deps: { runs: RunDeps; endpoints: EndpointsContext },
  accountId: string,
  body: Omit<TaskCreate, "metadata" | "webhook">,
): Promise<Pick<TaskWork, "kind" | "target" | "request">> {
  const raw = body as Record<string, unknown>;
  const kinds = (["prompt", "endpoint", "published"] as const).filter((name) => raw[name] !== undefined && raw[name] !== null);
  if (kinds.length !== 1)
    throw invalid(
      ["body"],
      "give exactly one of prompt (a search), endpoint (your endpoint's stub) or published (a public stub)",
      "value_error",
    );
  const kind = kinds[0]!;
  if (kind === "prompt") {
    if (body.inputs !== undefined) throw invalid(["body", "inputs"], "inputs go with endpoint or published, not with a prompt");
    const search: Record<string, unknown> = {};
    for (const name of SEARCH_FIELDS) if (raw[name] !== undefined) search[name] = raw[name];
    checkSearchBody(deps.runs, search as Parameters<typeof checkSearchBody>[1]);
    return { kind: "search", target: null, request: JSON.stringify(search) };
  }
  for (const name of SEARCH_FIELDS)
    if (isGiven(raw[name])) throw invalid(["body", name], `${name} belongs to a search; an endpoint's task takes its inputs instead`);
  const stub = kind === "endpoint" ? body.endpoint! : body.published!;
  const inputs = body.inputs ?? {};
  if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs))
    throw invalid(["body", "inputs"], "inputs must be a JSON object of the endpoint's input names and values", "dict_type");
  const declared = await declaredInputs(deps, accountId, kind, stub);
  // The endpoint's own checks, as its route makes them: a missing or mistyped input is refused now.
  resolveCall(declared, inputs);
  return { kind, target: stub, request: JSON.stringify(inputs) };
}

/** The inputs the endpoint that would run declares: the live version of the account's own, or a listing's newest (or their 404). */
export async function declaredInputs(
  deps: { endpoints: EndpointsContext },
  accountId: string,
  kind: "endpoint" | "published",
  stub: string,
): Promise<EndpointInput[]> {
  const inputs =
    kind === "endpoint"
      ? (await calledVersion(deps.endpoints, accountId, stub, null)).inputs
      : (await findCallable(deps.endpoints, stub)).versions.at(-1)!.inputs;
  return inputs as EndpointInput[];
}

export function checkMetadata(metadata: unknown): string | null {
  if (metadata === undefined || metadata === null) return null;
  if (typeof metadata !== "object" || Array.isArray(metadata))
    throw invalid(["body", "metadata"], "metadata must be a JSON object", "dict_type");
  const text = JSON.stringify(metadata);
  if (new TextEncoder().encode(text).length > METADATA_MAX_BYTES)
    throw invalid(["body", "metadata"], `metadata must be at most ${METADATA_MAX_BYTES} bytes of JSON`, "too_long");
  return text;
}
