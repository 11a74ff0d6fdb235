/**
 * A batch's body checked before anything is queued: exactly one endpoint,
 * and every input against the inputs that endpoint declares, as its own
 * route checks a call's body. Every bad input is reported in one 422, each
 * at its index (["body", "inputs", i, ...]), so a caller fixes them all at
 * once rather than one per try.
 */
import { InvalidInput, invalid, ServiceError, type ValidationIssue } from "../errors.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { resolveCall } from "../endpoints/runtime/call-inputs.ts";
import { BatchCreateBody, type BatchCreate } from "./batch-model.ts";
import { checkWebhookUrl, type WebhookUrlPolicy } from "../webhooks/url.ts";
import { isGiven } from "../research/request.ts";
import { checkMetadata, declaredInputs, refuseUnknown } from "./request.ts";

const KNOWN = new Set(Object.keys(BatchCreateBody.properties));

/** What a batch runs, as stored: the endpoint it names, each input as JSON text (in order), its metadata. */
export interface BatchWork {
  kind: "endpoint" | "published";
  target: string;
  requests: string[];
  metadata: string | null;
  webhookUrl: string | null;
}

export async function checkBatchBody(
  deps: { endpoints: EndpointsContext; egress: WebhookUrlPolicy },
  accountId: string,
  body: BatchCreate,
): Promise<BatchWork> {
  const raw = body as Record<string, unknown>;
  refuseUnknown(raw, KNOWN);
  const kinds = (["endpoint", "published"] as const).filter((name) => raw[name] !== undefined && raw[name] !== null);
  if (kinds.length !== 1)
    throw invalid(["body"], "give exactly one of endpoint (your endpoint's stub) or published (a public stub)", "value_error");
  const metadata = checkMetadata(body.metadata);
  const webhookUrl = isGiven(body.webhook) ? checkWebhookUrl(body.webhook.url, deps.egress, ["body", "webhook", "url"]) : null;
  const kind = kinds[0]!;
  const stub = kind === "endpoint" ? body.endpoint! : body.published!;
  const declared = await declaredInputs(deps, accountId, kind, stub);
  const issues: ValidationIssue[] = [];
  body.inputs.forEach((input, index) => {
    const at = ["body", "inputs", index];
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      issues.push({ loc: at, msg: "Input should be a JSON object of the endpoint's input names and values", type: "dict_type" });
      return;
    }
    try {
      resolveCall(declared, input);
    } catch (error) {
      // The endpoint's own refusals, placed at the input: its 422's fields under the index, its 400 (missing) at the index.
      if (error instanceof InvalidInput)
        for (const issue of error.issues) issues.push({ ...issue, loc: [...at, ...issue.loc.slice(issue.loc[0] === "body" ? 1 : 0)] });
      else if (error instanceof ServiceError && error.code === "missing_inputs")
        issues.push({ loc: at, msg: error.message, type: "missing" });
      else throw error;
    }
  });
  if (issues.length > 0) throw new InvalidInput(issues);
  return { kind, target: stub, requests: body.inputs.map((input) => JSON.stringify(input)), metadata, webhookUrl };
}
