/**
 * A designed or published endpoint called as a model. The last user
 * message holds the call's inputs: a JSON object, as the endpoint's own
 * route takes its body, or plain text when the endpoint has exactly one
 * string input that a call must give (the optional ones keep their
 * defaults). Earlier messages are not read: an endpoint's inputs are its
 * whole question. The run, its usage and its billing (a publisher's share
 * included) are the endpoint routes' own (endpoints/runtime/call.ts,
 * marketplace/run.ts); the answer has the search answer's shape.
 */
import { invalid, ServiceError } from "../errors.ts";
import type { Call } from "../http/call.ts";
import type { EndpointInput } from "../endpoints/model.ts";
import { calledVersion } from "../endpoints/reads.ts";
import { runOwned } from "../endpoints/runtime/call.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import { findCallable } from "../marketplace/listings.ts";
import { runPublished } from "../marketplace/run.ts";
import type { RunDeps } from "../research/run/hold.ts";
import type { FaceAnswer } from "./completion.ts";
import { askedText } from "./messages.ts";
import type { ChatMessage } from "./model.ts";
import { unknownModel, type ModelRef } from "./models.ts";

export interface EndpointFace {
  endpoints: EndpointsContext;
  runs: RunDeps;
  call: Call;
  signal: AbortSignal;
}

/** The call's body from the question's text. */
export function inputsOf(text: string, inputs: readonly EndpointInput[], at: (string | number)[]): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      throw invalid(at, "the inputs are not valid JSON");
    }
  }
  // Plain text fills the one input a call must give, when it is a string: the optional ones keep their defaults.
  const required = inputs.filter((input) => input.required !== false && (input.default === undefined || input.default === null));
  const only = required.length === 1 ? required[0]! : inputs.length === 1 ? inputs[0]! : null;
  if (only?.type === "string") return { [only.name]: trimmed };
  const names = inputs.map((input) => `${input.name} (${input.type})`).join(", ");
  throw invalid(at, `this endpoint takes its inputs as a JSON object in the last user message: ${names}`);
}

/** A 404 of the endpoint or listing is the model's: the same words as for a model that does not exist. */
function asUnknownModel(error: unknown): never {
  throw error instanceof ServiceError && error.code === "not_found" ? unknownModel() : error;
}

export async function endpointAnswer(
  face: EndpointFace,
  ref: Exclude<ModelRef, { kind: "search" }>,
  messages: readonly ChatMessage[],
): Promise<FaceAnswer> {
  const asked = askedText(messages);
  const at = ["body", "messages", asked.index, "content"];
  if (ref.kind === "endpoint") {
    const version = await calledVersion(face.endpoints, face.call.caller.accountId, ref.stub, null).catch(asUnknownModel);
    const body = inputsOf(asked.text, version.inputs as EndpointInput[], at);
    return runOwned(face.runs, face.call, ref.stub, version, body, face.signal);
  }
  const published = await findCallable(face.endpoints, ref.stub).catch(asUnknownModel);
  const snapshot = published.versions.at(-1)!;
  const body = inputsOf(asked.text, snapshot.inputs as EndpointInput[], at);
  return runPublished(face.runs, face.call, published, snapshot, body, face.signal);
}
