/** Shortcuts for the designed-endpoint tests: calls with a key, and a deterministic endpoint body. */
import type { TestApp } from "./app.ts";
import { jsonOf } from "./app.ts";

export function client(app: TestApp, apiKey: string) {
  const call = (method: string, path: string, body?: unknown) =>
    app.fetch(path, {
      method,
      headers: { "X-API-Key": apiKey, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    call,
    json: async (method: string, path: string, body?: unknown) => jsonOf(call(method, path, body)),
  };
}

export { landmarkEndpoint } from "./landmark-endpoint.ts";

/** A small JSON Schema check for request schemas: required present, declared types right. */
export function validatesAgainst(
  schema: { properties: Record<string, { type: string }>; required: string[] },
  value: Record<string, unknown>,
): string[] {
  const problems: string[] = [];
  for (const name of schema.required) if (!(name in value)) problems.push(`missing ${name}`);
  for (const [name, v] of Object.entries(value)) {
    const type = schema.properties[name]?.type;
    if (!type) problems.push(`unknown ${name}`);
    else if (type === "array" ? !Array.isArray(v) : typeof v !== type) problems.push(`${name} is not a ${type}`);
  }
  return problems;
}
