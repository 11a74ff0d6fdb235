/**
 * A call's body against an endpoint's inputs (spec 4.1): an omitted or null
 * optional input takes its default (a null default: the agent is told the
 * value was not provided); missing required inputs are a 400 naming only
 * those, with the optional ones shown as `name?: type`; a wrong type is a
 * 422; max_results is at least 1 and floored; include_domains and
 * exclude_domains are domain lists, one or the other.
 */
import type { SourceScope } from "../../contents/source-scope.ts";
import { InvalidInput, ServiceError, type ValidationIssue } from "../../errors.ts";
import { domainScopes } from "../../research/domain-lists.ts";
import type { EndpointInput } from "../model.ts";
import { isRequired, MAX_RESULTS } from "../rules.ts";

export type InputValue = string | number | boolean;

export interface ResolvedCall {
  /** Every input's value; null for an optional input without a value. */
  values: Record<string, InputValue | null>;
  notProvided: string[];
  maxResults: number | undefined;
  whitelist: SourceScope | null;
  blacklist: SourceScope | null;
}

const TYPE_MESSAGES: Record<EndpointInput["type"], { msg: string; type: string }> = {
  string: { msg: "Input should be a valid string", type: "string_type" },
  number: { msg: "Input should be a valid number", type: "float_type" },
  boolean: { msg: "Input should be a valid boolean", type: "bool_type" },
};

function matches(value: unknown, type: EndpointInput["type"]): value is InputValue {
  if (type === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === type;
}

export function describeMissing(inputs: EndpointInput[], missing: EndpointInput[]): string {
  const optional = inputs.filter((i) => !isRequired(i)).map((i) => `${i.name}?: ${i.type}`);
  return `missing required input${missing.length > 1 ? "s" : ""}: ${missing.map((i) => `${i.name}: ${i.type}`).join(", ")}${optional.length ? ` (optional: ${optional.join(", ")})` : ""}`;
}

/** A domain list as the body gives it (no schema has checked it): absent, or at most 200 strings. */
function domainList(record: Record<string, unknown>, name: string, issues: ValidationIssue[]): string[] | null {
  const list = record[name];
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list) || list.some((d) => typeof d !== "string") || list.length > 200) {
    issues.push({ loc: ["body", name], msg: "Input should be a valid list of domains (strings, at most 200)", type: "list_type" });
    return null;
  }
  return list as string[];
}

export function resolveCall(inputs: EndpointInput[], body: unknown): ResolvedCall {
  if (body === null || body === undefined) body = {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new InvalidInput([
      { loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" },
    ]);
  }
  const record = body as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  const missing: EndpointInput[] = [];
  const values: ResolvedCall["values"] = {};
  const notProvided: string[] = [];
  for (const input of inputs) {
    const given = Object.hasOwn(record, input.name) ? record[input.name] : undefined;
    if (given === undefined || given === null) {
      if (isRequired(input)) missing.push(input);
      else if (input.default !== null && input.default !== undefined) values[input.name] = input.default;
      else {
        values[input.name] = null;
        notProvided.push(input.name);
      }
      continue;
    }
    if (!matches(given, input.type)) {
      issues.push({ loc: ["body", input.name], ...TYPE_MESSAGES[input.type] });
      continue;
    }
    values[input.name] = given;
  }
  let maxResults: number | undefined;
  const limit = values[MAX_RESULTS];
  if (typeof limit === "number") {
    maxResults = Math.floor(limit);
    if (maxResults < 1)
      issues.push({ loc: ["body", MAX_RESULTS], msg: "Input should be greater than or equal to 1", type: "greater_than_equal" });
    values[MAX_RESULTS] = maxResults;
  }
  const { whitelist, blacklist } = domainScopes(
    { name: "include_domains", read: () => domainList(record, "include_domains", issues) },
    { name: "exclude_domains", read: () => domainList(record, "exclude_domains", issues) },
    issues,
  );
  // Missing required inputs are the 400 of spec 4.1, whatever else is wrong; type problems are the 422 after that.
  if (missing.length) throw new ServiceError("missing_inputs", describeMissing(inputs, missing));
  if (issues.length) throw new InvalidInput(issues);
  return { values, notProvided, maxResults, whitelist, blacklist };
}
