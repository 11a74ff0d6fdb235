/**
 * Token counts with a real tokenizer (o200k_base, the encoding of current
 * OpenAI models): what contents report and what usage bills when no LLM
 * reports its own numbers.
 */
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

export function countTokens(text: string): number {
  return text ? countO200k(text) : 0;
}

export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)?.length ?? 0;
}
