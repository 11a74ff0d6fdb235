/**
 * How to call an endpoint version, returned with every record: its URLs
 * (the unversioned one only when the version is live), the request and
 * response JSON Schemas, an example request that validates against the
 * request schema, code that works as written, and a hand-off an agent can
 * act on. The same object describes published endpoints.
 */
import { KEY_ENV } from "../accounts/keys.ts";
import { toJsonSchema, type JsonSchema } from "../research/output-format.ts";
import type { EndpointInput } from "./model.ts";
import { isRequired, MAX_RESULTS, type OutputFormat } from "./rules.ts";

export interface Integration {
  method: "POST";
  url: string;
  versioned_url: string;
  request_schema: JsonSchema;
  response_schema: JsonSchema;
  example_request: Record<string, unknown>;
  code: { curl: string; python: string; javascript: string };
  agent_handoff: string;
}

const EXAMPLES: [RegExp, string][] = [
  [/company|organi[sz]ation|business|brand|firm/i, "Acme Corporation"],
  [/city|town/i, "Lyon"],
  [/country|nation/i, "Portugal"],
  [/person|people|author|founder|ceo|celebrity|athlete/i, "Ada Lovelace"],
  [/ticker|symbol|stock/i, "AAPL"],
  [/product|device|model/i, "Raspberry Pi 5"],
  [/url|website|site|domain/i, "https://example.com"],
  [/date|day/i, "2024-05-01"],
  [/language/i, "Portuguese"],
  [/topic|query|subject|question|keyword/i, "heat pumps"],
];

export function exampleValue(input: EndpointInput): string | number | boolean {
  if (input.default !== null && input.default !== undefined) return input.default;
  if (input.type === "boolean") return true;
  if (input.type === "number") return /year/i.test(input.name) ? 2024 : input.name === MAX_RESULTS ? 5 : 3;
  for (const [pattern, value] of EXAMPLES) if (pattern.test(input.name)) return value;
  return `example ${input.name.replace(/_/g, " ")}`;
}

export function requestSchema(inputs: EndpointInput[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const input of inputs) {
    properties[input.name] = {
      type: input.type,
      ...(input.name === MAX_RESULTS ? { minimum: 1 } : {}),
      ...(input.default !== null && input.default !== undefined ? { default: input.default } : {}),
      ...(input.description ? { description: input.description } : {}),
    };
  }
  const domains = { type: "array", items: { type: "string" }, maxItems: 200 };
  properties.include_domains = { ...domains, description: "Only use sources from these domains (not with exclude_domains)." };
  properties.exclude_domains = { ...domains, description: "Never use sources from these domains (not with include_domains)." };
  return { type: "object", properties, required: inputs.filter(isRequired).map((i) => i.name) };
}

export function responseSchema(outputFormat: OutputFormat): JsonSchema {
  return {
    type: "object",
    properties: {
      response: toJsonSchema(outputFormat),
      context: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "integer" },
            metadata: { type: "object", properties: { title: { type: "string" }, url: { type: "string" }, content: { type: "string" } } },
          },
        },
      },
      info: { type: "object" },
    },
    required: ["response", "context", "info"],
  };
}

export function exampleRequest(inputs: EndpointInput[]): Record<string, unknown> {
  const example: Record<string, unknown> = {};
  for (const input of inputs) {
    if (isRequired(input)) example[input.name] = exampleValue(input);
    else if (input.default !== null && input.default !== undefined) example[input.name] = input.default;
  }
  return example;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function buildIntegration(input: {
  apiName: string;
  inputs: EndpointInput[];
  outputFormat: OutputFormat;
  url: string;
  versionedUrl: string;
}): Integration {
  const example = exampleRequest(input.inputs);
  const body = JSON.stringify(example);
  const fields = Object.keys(input.outputFormat).join(", ");
  const described = input.inputs.map((i) => `${i.name}${isRequired(i) ? "" : "?"}: ${i.type}`).join(", ") || "no inputs";
  return {
    method: "POST",
    url: input.url,
    versioned_url: input.versionedUrl,
    request_schema: requestSchema(input.inputs),
    response_schema: responseSchema(input.outputFormat),
    example_request: example,
    code: {
      curl: `curl -sS -X POST ${shellQuote(input.url)} -H "X-API-Key: $${KEY_ENV}" -H 'Content-Type: application/json' -d ${shellQuote(body)}`,
      python: [
        "import os, requests",
        `response = requests.post(${JSON.stringify(input.url)}, headers={"X-API-Key": os.environ["${KEY_ENV}"]}, json=${body
          .replace(/\btrue\b/g, "True")
          .replace(/\bfalse\b/g, "False")
          .replace(/\bnull\b/g, "None")}, timeout=120)`,
        "response.raise_for_status()",
        'print(response.json()["response"])',
      ].join("\n"),
      javascript: [
        `const response = await fetch(${JSON.stringify(input.url)}, {`,
        '  method: "POST",',
        `  headers: { "X-API-Key": process.env.${KEY_ENV}, "Content-Type": "application/json" },`,
        `  body: JSON.stringify(${body}),`,
        "});",
        "if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);",
        "console.log((await response.json()).response);",
      ].join("\n"),
    },
    agent_handoff:
      `To run "${input.apiName}", POST JSON to ${input.url} with the header X-API-Key (read it from $${KEY_ENV}). ` +
      `Body fields: ${described} (a ? marks an optional field); optionally include_domains or exclude_domains, one of them, as lists of domains. ` +
      `Example body: ${body}. The answer is JSON {response, context, info}: response is an object with ${fields || "the designed fields"} (null where the sources do not say), context lists the sources. ` +
      "A 400 names missing required fields, a 422 a wrong type; on 429 wait Retry-After seconds.",
  };
}
