/**
 * The body parser for every route. Elysia's default answers malformed JSON
 * with a bare 400 and reads any size; we cap the size (413 with a JSON body),
 * read JSON and report malformed JSON the way FastAPI does (422 json_invalid
 * at the offset). A body that is not JSON stays a string, so the route's
 * schema rejects it with FastAPI's "valid dictionary" message.
 */
import { Elysia } from "elysia";
import { readAtMost } from "../byte-stream.ts";
import { InvalidInput, ServiceError } from "../errors.ts";
import { requestMeta } from "./request-context.ts";
import { jsonErrorOffset } from "./validation-detail.ts";

export function tooLarge(maxBytes: number): ServiceError {
  return new ServiceError("payload_too_large", `request body is larger than the ${maxBytes} bytes allowed`);
}

const isJsonType = (contentType: string) => contentType === "" || contentType === "application/json" || contentType.endsWith("+json");

function parseBody(text: string, contentType: string): unknown {
  if (text.trim() === "") return null;
  if (!isJsonType(contentType)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidInput([{ loc: ["body", jsonErrorOffset(text)], msg: "JSON decode error", type: "json_invalid" }]);
  }
}

export function bodyParser(maxBytes: number) {
  return new Elysia({ name: "body-parser" }).onParse({ as: "global" }, async ({ request }) => {
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > maxBytes) throw tooLarge(maxBytes);
    const text = new TextDecoder().decode(await readAtMost(request.body, maxBytes, () => tooLarge(maxBytes)));
    const value = parseBody(text, (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase());
    requestMeta(request).rawBody = { value };
    return value;
  });
}
