/**
 * Token counts with a real tokenizer (o200k_base, the encoding of current
 * OpenAI models): what contents report and what usage bills when no LLM
 * reports its own numbers.
 */
import type { countTokens as CountO200k } from "gpt-tokenizer/encoding/o200k_base";

let o200k: typeof CountO200k | undefined;

/**
 * The encoding's 200,000 ranks take some 60 MB once built (90 MB while
 * loading): the first count loads them (0.3 to 1 s, once per process), so
 * a server that has not read or searched anything yet does not hold them.
 */
function counter(): typeof CountO200k {
  return (o200k ??= (require("gpt-tokenizer/encoding/o200k_base") as { countTokens: typeof CountO200k }).countTokens);
}

export function countTokens(text: string): number {
  return text ? counter()(text) : 0;
}

export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)?.length ?? 0;
}
