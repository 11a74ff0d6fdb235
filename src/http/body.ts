/**
 * The body parser for every route. Elysia's default answers malformed JSON
 * with a bare 400 and reads any size; we cap the size (413 with a JSON body),
 * read JSON under json-input.ts's limits (depth, storable text) and report
 * malformed JSON the way FastAPI does (422 json_invalid at the offset).
 * Every body of this API is a JSON object (or nothing), so anything else is
 * refused here with FastAPI's "valid dictionary" message:
 * Elysia would turn `[1]` or `"x"` into `{}` for a schema whose fields are
 * all optional, and skip checking it.
 */
import { Elysia } from "elysia";
import { readAtMost } from "../byte-stream.ts";
import { InvalidInput, ServiceError } from "../errors.ts";
import { parseJsonInput } from "./json-input.ts";
import { requestMeta } from "./request-context.ts";
import { jsonErrorOffset } from "./validation-detail.ts";

export function tooLarge(maxBytes: number): ServiceError {
  return new ServiceError("payload_too_large", `request body is larger than the ${maxBytes} bytes allowed`);
}

const isJsonType = (contentType: string) => contentType === "" || contentType === "application/json" || contentType.endsWith("+json");

const notAnObject = () =>
  new InvalidInput([
    { loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" },
  ]);

// Fatal: bytes that are not UTF-8 are refused, not stored as U+FFFD.
const utf8 = new TextDecoder("utf-8", { fatal: true });

function decode(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new InvalidInput([
      { loc: ["body"], msg: "Input should be a valid string, unable to parse raw data as a unicode string", type: "string_unicode" },
    ]);
  }
}

function parseBody(text: string, contentType: string): unknown {
  if (text.trim() === "") return null;
  if (!isJsonType(contentType)) throw notAnObject();
  const value = parseJsonInput(text, jsonErrorOffset);
  if (value !== null && (typeof value !== "object" || Array.isArray(value))) throw notAnObject();
  return value;
}

export function bodyParser(maxBytes: number) {
  return new Elysia({ name: "body-parser" }).onParse({ as: "global" }, async ({ request }) => {
    const length = request.headers.get("content-length");
    const declared = Number(length ?? "0");
    if (declared > maxBytes) throw tooLarge(maxBytes);
    // A declared length bounds the body (the server reads no further), so it is read in one native call;
    // only a chunked body, whose size nobody declared, is counted chunk by chunk.
    const bytes =
      length !== null && Number.isInteger(declared)
        ? new Uint8Array(await request.arrayBuffer())
        : await readAtMost(request.body, maxBytes, () => tooLarge(maxBytes));
    const text = decode(bytes);
    const value = parseBody(text, (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase());
    requestMeta(request).rawBody = { value };
    return value;
  });
}
