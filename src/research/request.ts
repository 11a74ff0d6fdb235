/**
 * A search body (already shaped by its TypeBox schema) checked against the
 * rules a schema cannot say, and turned into the engine's typed request.
 * `null` for an optional field means absent, as Critique's clients send it;
 * so do the empty values some clients send on every call (langchain-critique
 * sends `"source_blacklist": [], "output_format": {}`): `{}`, `[]` and `""`.
 */
import type { Static } from "@sinclair/typebox";
import { InvalidInput, type ValidationIssue } from "../errors.ts";
import type { SourceScope } from "../contents/source-scope.ts";
import { domainScopes } from "./domain-lists.ts";
import { parseImageInput, type ImageInput } from "./image.ts";
import type { SearchRequestBody } from "./model.ts";
import { checkOutputFormat, toJsonSchema, type JsonSchema, type OutputShape } from "./output-format.ts";

export type SearchBody = Static<typeof SearchRequestBody>;

export interface ResearchRequest {
  prompt: string;
  image: ImageInput | null;
  whitelist: SourceScope | null;
  blacklist: SourceScope | null;
  outputFormat: { shape: { [field: string]: OutputShape }; schema: JsonSchema } | null;
  /** Designed endpoints cut top-level lists to this many items. */
  maxResults?: number;
}

/** An optional field counts as given unless it is absent, null, or empty (`{}`, `[]`, `""`). */
export function isGiven<T>(value: T | null | undefined): value is T {
  if (value === undefined || value === null || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

export function parseSearchBody(body: SearchBody, options: { imageMaxBytes: number }): ResearchRequest {
  const issues: ValidationIssue[] = [];
  const prompt = body.prompt.trim();
  if (!prompt) issues.push({ loc: ["body", "prompt"], msg: "String should have at least 1 character", type: "string_too_short" });

  const { whitelist, blacklist } = domainScopes(
    { name: "source_whitelist", read: () => body.source_whitelist ?? null },
    { name: "source_blacklist", read: () => body.source_blacklist ?? null },
    issues,
  );

  let outputFormat: ResearchRequest["outputFormat"] = null;
  if (isGiven(body.output_format)) {
    const problems = checkOutputFormat(body.output_format, ["body", "output_format"]);
    issues.push(...problems);
    if (problems.length === 0) {
      const shape = body.output_format as { [field: string]: OutputShape };
      outputFormat = { shape, schema: toJsonSchema(shape) };
    }
  }

  let image: ImageInput | null = null;
  if (isGiven(body.image)) {
    try {
      image = parseImageInput(body.image, ["body", "image"], options.imageMaxBytes);
    } catch (error) {
      if (error instanceof InvalidInput) issues.push(...error.issues);
      else throw error;
    }
  }
  if (issues.length) throw new InvalidInput(issues);
  return { prompt, image, whitelist, blacklist, outputFormat };
}
