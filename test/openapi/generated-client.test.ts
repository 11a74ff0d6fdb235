/**
 * A client generated from the served document type-checks a call to every
 * operation: openapi-typescript turns /openapi.json into types, a small file
 * makes one openapi-fetch call per operation (its path, method, path
 * parameters and a body built from the body's schema), and tsc must accept
 * it. The same file holds calls that must not type-check (a wrong body type,
 * a missing required field, a text id), each under @ts-expect-error, so a
 * document whose bodies lost their schemas fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS from "openapi-typescript";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

type Schema = Record<string, unknown>;
interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
}

const root = fileURLToPath(new URL("../../", import.meta.url));
let database: TestDatabase;
let app: TestApp;
let doc: any;
let dir: string;

beforeAll(async () => {
  database = await freshDatabase();
  app = await startTestApp(database);
  doc = await jsonOf(app.fetch("/openapi.json"));
  dir = mkdtempSync(join(tmpdir(), "openapi-client-"));
  writeFileSync(join(dir, "schema.ts"), await openapiTS(doc, { silent: true }));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await app.stop();
  await database.drop();
});

/** The smallest value the schema's type admits: required properties only, the first branch of a union. */
function example(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 20) return {};
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    return example(doc.components.schemas[name], depth + 1);
  }
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const union of [schema.anyOf, schema.oneOf] as (Schema[] | undefined)[]) {
    if (union) return example(union.find((branch) => branch.type !== "null") ?? union[0], depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : (schema.type as string | undefined);
  switch (type) {
    case "string":
      return "x";
    case "integer":
    case "number":
      return (schema.minimum as number | undefined) ?? 1;
    case "boolean":
      return true;
    case "array":
      return (schema.minItems as number | undefined) ? [example(schema.items as Schema, depth + 1)] : [];
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(((schema.required ?? []) as string[]).map((name) => [name, example(properties[name], depth + 1)]));
    }
    default:
      return {};
  }
}

function init(operation: Operation): string {
  const parts: string[] = [];
  const params: Record<string, Record<string, unknown>> = {};
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== "path" && !parameter.required) continue;
    (params[parameter.in] ??= {})[parameter.name] = example(parameter.schema);
  }
  if (Object.keys(params).length) parts.push(`params: ${JSON.stringify(params)}`);
  const body = operation.requestBody?.content["application/json"]?.schema;
  if (body) parts.push(`body: ${JSON.stringify(example(body))}`);
  return parts.length ? `, { ${parts.join(", ")} }` : "";
}

const HEADER = `import createClient from "openapi-fetch";
import type { paths } from "./schema.ts";

const client = createClient<paths>({ baseUrl: "http://localhost" });
`;

function tsc(file: string) {
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "bundler",
        allowImportingTsExtensions: true,
        lib: ["ES2022", "DOM"],
        types: [],
        skipLibCheck: true,
        paths: { "openapi-fetch": [join(root, "node_modules/openapi-fetch/dist/index.d.mts")] },
      },
      files: [file],
    }),
  );
  const run = Bun.spawnSync([join(root, "node_modules/.bin/tsc"), "-p", join(dir, "tsconfig.json")], { cwd: dir });
  return { exitCode: run.exitCode, output: run.stdout.toString() + run.stderr.toString() };
}

describe("a client generated from /openapi.json", () => {
  test("type-checks one call per operation, and refuses wrong ones", () => {
    const calls: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(item))
        calls.push(`  await client.${method.toUpperCase()}(${JSON.stringify(path)}${init(operation)});`);
    }
    expect(calls.length).toBeGreaterThanOrEqual(30);
    const source = `${HEADER}
export async function everyOperation() {
${calls.join("\n")}
  const account = await client.GET("/v1/account");
  const balance: number | undefined = account.data?.balance;
  const created = await client.POST("/v1/keys", { body: { name: "ci" } });
  const secret: string | undefined = created.data?.api_key;
  return [balance, secret];
}

export async function wrongCalls() {
  // @ts-expect-error the prompt is a string
  await client.POST("/v1/search", { body: { prompt: 42 } });
  // @ts-expect-error the prompt is required
  await client.POST("/v1/search", { body: {} });
  // @ts-expect-error a search needs a body
  await client.POST("/v1/search", {});
  // @ts-expect-error an endpoint's id is an integer
  await client.GET("/v1/design-api/{api_id}", { params: { path: { api_id: "abc" } } });
  // @ts-expect-error no such route
  await client.GET("/v1/nowhere");
}
`;
    writeFileSync(join(dir, "calls.ts"), source);
    const result = tsc("calls.ts");
    expect(result.output).toBe("");
    expect(result.exitCode).toBe(0);
  });

  test("the checker does fail on a wrong body (the check above can fail)", () => {
    writeFileSync(join(dir, "wrong.ts"), `${HEADER}\nawait client.POST("/v1/search", { body: { prompt: 42 } });\n`);
    const result = tsc("wrong.ts");
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain("wrong.ts");
  });
});
