/**
 * The run behind both OpenAI faces (chat completions, responses). For
 * `search`, the chat's question as a search request, then the run answered
 * in one piece (charged before the answer leaves) or started as a stream
 * (its usage told when it ends, under the stream's own route name). For an
 * endpoint model, the endpoint's answer (charged as its route charges it),
 * replayed as events when the caller streams.
 */
import type { Call } from "../http/call.ts";
import type { RunInfo } from "../research/engine.ts";
import type { SearchAnswer, RunEvents } from "../research/run/drain.ts";
import { answerSearch, checkSearchBody, runOf, startSearch, type RunDeps } from "../research/run/hold.ts";
import type { ResearchEvent } from "../research/types.ts";
import type { EndpointsContext } from "../endpoints/service.ts";
import type { FaceAnswer } from "./completion.ts";
import { endpointAnswer } from "./endpoint-call.ts";
import { questionOf } from "./messages.ts";
import type { ChatMessage } from "./model.ts";
import type { ModelRef } from "./models.ts";

export interface FaceRun {
  runs: RunDeps;
  endpoints: EndpointsContext;
  call: Call;
  request: Request;
  /** The MCP face's ear on a run (request-context.ts RequestMeta.hear). */
  hear?: (event: ResearchEvent | { type: "started" }) => void;
}

function researchOf(runs: RunDeps, messages: readonly ChatMessage[], outputFormat: unknown) {
  const question = questionOf(messages);
  return checkSearchBody(runs, {
    prompt: question.prompt,
    ...(question.image ? { image: question.image } : {}),
    ...(outputFormat !== undefined ? { output_format: outputFormat } : {}),
  });
}

/** The answer in one piece, its usage charged first. */
async function answered(face: FaceRun, messages: readonly ChatMessage[], outputFormat: unknown): Promise<SearchAnswer> {
  const research = researchOf(face.runs, messages, outputFormat);
  const { answer, usage } = await answerSearch(face.runs, research, runOf(face.call, { signal: face.request.signal }), face.hear);
  await face.call.charge(usage);
  return answer;
}

/**
 * The run's events, once it has its slot (failures until then are statuses). `stop` ends the run as a caller that
 * went away: the stream's reader cancelling calls it.
 */
async function streamed(
  face: FaceRun,
  messages: readonly ChatMessage[],
  outputFormat: unknown,
  route: string,
): Promise<{ events: RunEvents; stop: AbortController }> {
  const research = researchOf(face.runs, messages, outputFormat);
  const stop = new AbortController();
  const signal = AbortSignal.any([face.request.signal, stop.signal]);
  const events = await startSearch(face.runs, research, runOf(face.call, { signal, ended: face.call.streams(route) }));
  return { events, stop };
}

/** An answer given in one piece, replayed as a run's events: an endpoint model's stream sends it whole. */
async function* replayed(answer: FaceAnswer): RunEvents {
  yield { type: "context", content: answer.context };
  yield { type: "response", content: answer.response };
  // The streams read only the tokens of a run's info.
  return answer.info as RunInfo;
}

/** What a face answers from: the answer, or the events of a stream and when its usage is written. */
export type FaceResult = { answer: FaceAnswer } | { events: RunEvents; stop: AbortController; written: () => Promise<void> };

/** `streamRoute` is the usage route of a streamed call, null when the caller wants the answer in one piece. */
export async function faceRun(
  face: FaceRun,
  ref: ModelRef,
  messages: readonly ChatMessage[],
  outputFormat: unknown,
  streamRoute: string | null,
): Promise<FaceResult> {
  if (ref.kind !== "search") {
    const answer = await endpointAnswer({ ...face, signal: face.request.signal }, ref, messages);
    // The endpoint's answer was charged before its replay begins.
    return streamRoute === null ? { answer } : { events: replayed(answer), stop: new AbortController(), written: () => Promise.resolve() };
  }
  if (streamRoute === null) return { answer: await answered(face, messages, outputFormat) };
  const { events, stop } = await streamed(face, messages, outputFormat, streamRoute);
  return { events, stop, written: () => face.call.written() };
}
