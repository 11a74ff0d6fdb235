/**
 * The designer: a research task in words to an endpoint design. With a
 * language model it is one structured call; without one (or when the call
 * fails) the rule-based designer reads the prompt.
 */
import type { Logger } from "../../log.ts";
import { modelFailure } from "../../research/llm/failure.ts";
import type { LlmPort } from "../../research/llm/port.ts";
import type { TokenUsage } from "../../research/types.ts";
import { NO_USAGE } from "../../research/llm/port.ts";
import type { Design } from "../model.ts";
import { DESIGN_SYSTEM_PROMPT, designSchema, fromLlmDesign } from "./llm-prompt.ts";
import { designByRules } from "./rules/index.ts";

export interface DesignOutcome {
  design: Design;
  designer: "llm" | "rules";
  usage: TokenUsage;
}

/** `log` carries the call's request id: a failed model call is logged there, in the provider's words, and designed by rules. */
export async function designEndpoint(llm: LlmPort | null, prompt: string, signal: AbortSignal, log: Logger): Promise<DesignOutcome> {
  if (llm) {
    try {
      const { value, usage } = await llm.structured({ system: DESIGN_SYSTEM_PROMPT, prompt, schema: designSchema() }, signal);
      return { design: fromLlmDesign(value, prompt), designer: "llm", usage };
    } catch (error) {
      signal.throwIfAborted();
      modelFailure(error, log, "design");
    }
  }
  return { design: designByRules(prompt), designer: "rules", usage: NO_USAGE };
}
