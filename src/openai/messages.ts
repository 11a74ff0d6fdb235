/**
 * A chat's messages as one research question. The last user message is the
 * question, and its first image part the search's image. Earlier turns and
 * the system (or developer) messages are folded in after the question as
 * context, newest turns first while they fit: the prompt keeps the search
 * body's bound (20,000 characters), each earlier message gives at most
 * 2,000 of them, and a turn that no longer fits is left out with the ones
 * before it. Tool messages are left out.
 */
import { invalid } from "../errors.ts";
import type { ChatMessage } from "./model.ts";

const MAX_PROMPT = 20_000;
const MAX_EARLIER = 2_000;
const CONTEXT_HEADING = "\n\nEarlier in this conversation (to understand the question above, not to answer):\n";

export interface Question {
  prompt: string;
  image: string | null;
}

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n")
    .trim();
}

function clipped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The last user message's text, and where it is: the question. */
export function askedText(messages: readonly ChatMessage[]): { text: string; index: number } {
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      last = i;
      break;
    }
  }
  if (last < 0) throw invalid(["body", "messages"], "the last user message is the question, and there is none");
  const text = textOf(messages[last]!.content).trim();
  if (!text) throw invalid(["body", "messages", last, "content"], "the question has no text");
  return { text, index: last };
}

export function questionOf(messages: readonly ChatMessage[]): Question {
  const { text: question, index: last } = askedText(messages);
  const asked = messages[last]!;
  if (question.length > MAX_PROMPT) {
    throw invalid(["body", "messages", last, "content"], `the question is longer than ${MAX_PROMPT} characters`, "string_too_long");
  }
  const images = Array.isArray(asked.content)
    ? asked.content.flatMap((part) => (part.type === "image_url" ? [part.image_url.url] : []))
    : [];
  if (images.length > 1) throw invalid(["body", "messages", last, "content"], "at most one image per question");

  const instructions = messages.filter((m, i) => i < last && (m.role === "system" || m.role === "developer"));
  const turns = messages.filter((m, i) => i !== last && (m.role === "user" || m.role === "assistant"));
  let budget = MAX_PROMPT - question.length - CONTEXT_HEADING.length;
  const take = (message: ChatMessage): string | null => {
    const text = textOf(message.content);
    if (!text) return "";
    const line = `${message.role === "developer" ? "system" : message.role}: ${clipped(text.replace(/\s+/g, " "), MAX_EARLIER)}`;
    if (line.length + 1 > budget) return null;
    budget -= line.length + 1;
    return line;
  };
  // Instructions first, then the turns nearest the question: the oldest turns are the ones left out.
  const told: string[] = [];
  let full = false;
  for (const message of instructions) {
    const line = take(message);
    if (line === null) {
      full = true;
      break;
    }
    if (line) told.push(line);
  }
  const recent: string[] = [];
  for (let i = turns.length - 1; i >= 0 && !full; i--) {
    const line = take(turns[i]!);
    if (line === null) break;
    if (line) recent.unshift(line);
  }
  told.push(...recent);
  return { prompt: told.length ? `${question}${CONTEXT_HEADING}${told.join("\n")}` : question, image: images[0] ?? null };
}
