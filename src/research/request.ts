/**
 * A search body (already shaped by its TypeBox schema) checked against the
 * rules a schema cannot say, and turned into the engine's typed request.
 * `null` for an optional field means absent, as Critique's clients send it.
 */
import { InvalidInput, type ValidationIssue } from "../errors.ts";
import { isEmptyScope, scopeOf, type SourceScope } from "../contents/source-scope.ts";
import { parseImageInput, type ImageInput } from "./image.ts";
import { checkOutputFormat, toJsonSchema, type JsonSchema, type OutputShape } from "./output-format.ts";

export interface SearchBody {
  prompt: string;
  image?: string | null;
  source_blacklist?: string[] | null;
  source_whitelist?: string[] | null;
  output_format?: unknown;
}

export interface ResearchRequest {
  prompt: string;
  image: ImageInput | null;
  whitelist: SourceScope | null;
  blacklist: SourceScope | null;
  outputFormat: { shape: { [field: string]: OutputShape }; schema: JsonSchema } | null;
  /** Designed endpoints cut top-level lists to this many items. */
  maxResults?: number;
}

export function parseSearchBody(body: SearchBody, options: { imageMaxBytes: number }): ResearchRequest {
  const issues: ValidationIssue[] = [];
  const prompt = body.prompt.trim();
  if (!prompt) issues.push({ loc: ["body", "prompt"], msg: "String should have at least 1 character", type: "string_too_short" });

  const lists = { source_whitelist: body.source_whitelist ?? [], source_blacklist: body.source_blacklist ?? [] };
  if (lists.source_whitelist.length && lists.source_blacklist.length) {
    issues.push({ loc: ["body", "source_whitelist"], msg: "source_whitelist and source_blacklist cannot both be given: send one of them", type: "value_error" });
  }
  const scopes: Record<keyof typeof lists, SourceScope | null> = { source_whitelist: null, source_blacklist: null };
  for (const name of Object.keys(lists) as (keyof typeof lists)[]) {
    if (!lists[name].length) continue;
    const { scope, invalid } = scopeOf(lists[name]);
    for (const index of invalid) issues.push({ loc: ["body", name, index], msg: "expected a domain (example.com) or an http(s) URL prefix", type: "value_error" });
    if (!isEmptyScope(scope)) scopes[name] = scope;
  }

  let outputFormat: ResearchRequest["outputFormat"] = null;
  if (body.output_format !== undefined && body.output_format !== null) {
    const problems = checkOutputFormat(body.output_format, ["body", "output_format"]);
    issues.push(...problems);
    if (problems.length === 0) {
      const shape = body.output_format as { [field: string]: OutputShape };
      outputFormat = { shape, schema: toJsonSchema(shape) };
    }
  }

  let image: ImageInput | null = null;
  if (body.image !== undefined && body.image !== null) {
    try {
      image = parseImageInput(body.image, ["body", "image"], options.imageMaxBytes);
    } catch (error) {
      if (error instanceof InvalidInput) issues.push(...error.issues);
      else throw error;
    }
  }
  if (issues.length) throw new InvalidInput(issues);
  return { prompt, image, whitelist: scopes.source_whitelist, blacklist: scopes.source_blacklist, outputFormat };
}
