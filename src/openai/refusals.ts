/**
 * What the OpenAI faces refuse: parameters that would change what the
 * answer means and that a research run cannot honour (a 400 naming the
 * parameter, so OpenAI's SDKs show it as `param`). Sampling parameters are
 * not here: they are accepted and ignored. Unknown models are models.ts's.
 */
import { ServiceError } from "../errors.ts";
import type { ChatCompletionRequest } from "./model.ts";
import type { ResponseRequest } from "./responses-model.ts";

/** A parameter that would change what the answer means, and cannot be honoured: a 400 naming it. */
function refused(param: string, message: string): ServiceError {
  return new ServiceError("bad_request", message, { body: { param } });
}

export function refuseUnsupported(body: ChatCompletionRequest): void {
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw refused("n", "n must be 1: a research run gives one answer");
  if ((Array.isArray(body.tools) && body.tools.length > 0) || (Array.isArray(body.functions) && body.functions.length > 0))
    throw refused(
      Array.isArray(body.tools) && body.tools.length > 0 ? "tools" : "functions",
      "tools are not supported: the model answers from its own search",
    );
  if (body.logprobs === true || (body.top_logprobs ?? 0) > 0) throw refused("logprobs", "logprobs are not available for research answers");
}

export function refuseUnsupportedResponse(body: ResponseRequest): void {
  if (Array.isArray(body.tools) && body.tools.length > 0)
    throw refused("tools", "tools are not supported: the model answers from its own search");
  if (body.previous_response_id) throw refused("previous_response_id", "responses are not stored: send the earlier turns in input");
  if (body.background === true) throw refused("background", "background responses are not supported yet");
}
