/**
 * The simple-evals sampler parthh01/simple-evals sampler/critique_sampler.py
 * (CritiqueSampler, registered as model "critique" in simple_evals.py), as it
 * runs with its API_BASE_URL pointed here. It joins the conversation into
 * one prompt ("role: content" lines), POSTs {"prompt"} with python-requests,
 * and loops: a 429 sleeps 1 s, then 1 s more, and retries (Retry-After is
 * not read); any other status has its body parsed, a body with an "error"
 * key (or one that is not JSON, or has no "response") becomes the text
 * "unable to answer"; otherwise the answer is body["response"].
 */
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/clock.ts";
import { MemoryStore } from "../../../src/limits/memory-store.ts";
import { startTestApp } from "../../helpers/app.ts";
import { backendName } from "../../helpers/env.ts";
import { useSearchApp } from "../search-app.ts";
import { citationsOf, pyRequest, type PyResponse } from "./wire.ts";

const s = useSearchApp();

type Message = { role: string; content: string };

interface SamplerResponse {
  response_text: unknown;
  response_metadata: Record<string, never>;
  actual_queried_message_list: Message[];
}

/** What the test can see of one sampler call beyond its return value: every HTTP answer and every sleep. */
interface SamplerTrace {
  responses: { status: number; retryAfter: string | null; body: any }[];
  sleptSeconds: number;
  trials: number;
}

const UNABLE = "unable to answer";

/** Python's `key in value` for what response.json() can return. */
function pythonIn(key: string, value: unknown): boolean {
  if (typeof value === "string") return value.includes(key);
  if (Array.isArray(value)) return value.includes(key);
  if (value !== null && typeof value === "object") return Object.hasOwn(value, key);
  throw new TypeError("argument of type is not iterable");
}

/**
 * CritiqueSampler.__call__, line for line: the loop is unbounded in the
 * original; `maxTrials` only keeps a broken test from spinning forever.
 */
async function critiqueSampler(
  messageList: Message[],
  options: { baseUrl: string; apiKey: string; sleep: (seconds: number) => Promise<void>; maxTrials?: number },
): Promise<{ result: SamplerResponse; trace: SamplerTrace }> {
  const prompt = messageList.map((m) => `${m.role}: ${m.content}`).join("\n");
  const url = `${options.baseUrl}/v1/search`;
  const headers = { "Content-Type": "application/json", "X-API-Key": options.apiKey };
  const data = { prompt };
  const trace: SamplerTrace = { responses: [], sleptSeconds: 0, trials: 0 };
  const sleep = async (seconds: number) => {
    trace.sleptSeconds += seconds;
    await options.sleep(seconds);
  };
  const answer = (text: unknown) => ({
    result: { response_text: text, response_metadata: {}, actual_queried_message_list: messageList },
    trace,
  });
  for (;;) {
    if (trace.trials > (options.maxTrials ?? 50)) throw new Error(`the sampler is still retrying after ${trace.trials} trials`);
    try {
      const response: PyResponse = await pyRequest("POST", url, { headers, json: data });
      let body: any;
      try {
        body = JSON.parse(response.text);
      } catch {
        body = response.text;
      }
      trace.responses.push({ status: response.status_code, retryAfter: response.headers.get("retry-after"), body });
      if (response.status_code === 429) {
        await sleep(1);
      } else {
        const output = response.json();
        if (pythonIn("error", output)) return answer(UNABLE);
        if (output === null || typeof output !== "object" || Array.isArray(output) || !Object.hasOwn(output, "response"))
          throw new Error("KeyError: 'response'");
        return answer(output.response);
      }
    } catch {
      return answer(UNABLE);
    }
    trace.trials += 1;
    await sleep(1);
  }
}

const realSleep = (seconds: number) => Bun.sleep(seconds * 1000);
const pack = (content: string, role = "user"): Message => ({ role, content });
const WAIT_WORDS = /^rate limited, try again in (\d+ seconds|1 second|a minute|\d+ minutes)$/;

describe("simple-evals: CritiqueSampler", () => {
  test("a SimpleQA question (one user message) is answered with the text, never 'unable to answer'", async () => {
    const { result, trace } = await critiqueSampler([pack("When was the Eiffel Tower completed?")], {
      baseUrl: s.app.url,
      apiKey: s.apiKey,
      sleep: realSleep,
    });
    expect(trace.responses.map((r) => r.status)).toEqual([200]);
    expect(typeof result.response_text).toBe("string");
    expect(result.response_text).not.toBe(UNABLE);
    expect(result.response_text).toContain("1889");
    // The grader reads the text as is: its [n] markers point into the context the sampler drops.
    const body = trace.responses[0]!.body;
    for (const n of citationsOf(result.response_text as string)) expect(body.context.some((c: any) => c.id === n)).toBe(true);
  });

  test("a successful body never carries an 'error' key, which the sampler would read as a failure", async () => {
    for (const question of ["When was the Eiffel Tower completed?", "What will the river bridge cost?", "zyxwv qqqq unknowable"]) {
      const { result, trace } = await critiqueSampler([pack(question)], { baseUrl: s.app.url, apiKey: s.apiKey, sleep: realSleep });
      expect(trace.responses[0]!.status).toBe(200);
      expect(Object.hasOwn(trace.responses[0]!.body, "error")).toBe(false);
      expect(result.response_text).not.toBe(UNABLE);
      expect(typeof result.response_text).toBe("string");
    }
  });

  test("a multi-turn list becomes 'role: content' lines and still gets an answer", async () => {
    const messages = [pack("You are a careful research assistant.", "system"), pack("What will the river bridge cost?")];
    const { result } = await critiqueSampler(messages, { baseUrl: s.app.url, apiKey: s.apiKey, sleep: realSleep });
    expect(result.response_text).toContain("42 million");
    expect(result.actual_queried_message_list).toBe(messages);
  });

  test("failures read as 'unable to answer': a bad key (401), an empty conversation (422), no server at all", async () => {
    const badKey = await critiqueSampler([pack("When was the Eiffel Tower completed?")], {
      baseUrl: s.app.url,
      apiKey: "sk_live_wrong",
      sleep: realSleep,
    });
    expect(badKey.trace.responses[0]!.status).toBe(401);
    expect(badKey.trace.responses[0]!.body.error).toBe("unauthorized");
    expect(badKey.result.response_text).toBe(UNABLE);

    // An empty message list joins to the prompt "", a 422 whose FastAPI body has no "response": a KeyError, caught.
    const empty = await critiqueSampler([], { baseUrl: s.app.url, apiKey: s.apiKey, sleep: realSleep });
    expect(empty.trace.responses[0]!.status).toBe(422);
    expect(empty.result.response_text).toBe(UNABLE);

    const nowhere = await critiqueSampler([pack("x")], { baseUrl: "http://127.0.0.1:9", apiKey: s.apiKey, sleep: realSleep });
    expect(nowhere.result.response_text).toBe(UNABLE);
  });

  test("a run past the deadline is a 504 whose body has 'error': 'unable to answer', not a retry", async () => {
    const slow = await startTestApp(s.database, {
      env: s.world.env({ SEARCH_DEADLINE_MS: "1000", PROVIDER_TIMEOUT_MS: "10000", SEARCH_HEDGING: "false" }),
      resolver: s.world.resolver,
    });
    s.world.searxng.setLatency(3_000);
    s.world.brave.setLatency(3_000);
    try {
      const key = (await slow.account({ limit: 100_000 })).apiKey;
      const { result, trace } = await critiqueSampler([pack("river bridge")], { baseUrl: slow.url, apiKey: key, sleep: realSleep });
      expect(trace.responses.map((r) => r.status)).toEqual([504]);
      expect(trace.responses[0]!.body.error).toBe("deadline_exceeded");
      expect(result.response_text).toBe(UNABLE);
    } finally {
      s.world.searxng.setLatency(0);
      s.world.brave.setLatency(0);
      await slow.stop();
    }
  });
});

describe("simple-evals: the 429 retry loop on a Free key (10 calls a minute)", () => {
  test("frozen clock: the 11th question is refused with Retry-After, the sampler's 1 s + 1 s sleeps move the clock, and it is answered", async () => {
    const clock = new ManualClock(Date.now());
    const limited = await startTestApp(s.database, {
      store: (c) => new MemoryStore(c),
      clock,
      env: s.world.env(),
      resolver: s.world.resolver,
    });
    try {
      const { apiKey: freeKey } = await limited.account({ name: "free-evals" });
      const sleep = async (seconds: number) => clock.advance(seconds * 1000);
      for (let i = 0; i < 10; i++) {
        const { result, trace } = await critiqueSampler([pack("When was the Eiffel Tower completed?")], {
          baseUrl: limited.url,
          apiKey: freeKey,
          sleep,
        });
        expect(trace.responses.map((r) => r.status)).toEqual([200]);
        expect(result.response_text).toContain("1889");
      }
      const { result, trace } = await critiqueSampler([pack("What will the river bridge cost?")], {
        baseUrl: limited.url,
        apiKey: freeKey,
        sleep,
      });
      const statuses = trace.responses.map((r) => r.status);
      expect(statuses.at(-1)).toBe(200);
      const refused = trace.responses.filter((r) => r.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      // One token every 6 s: the first refusal says at most 6 s, and the loop (2 s a trial) is answered once that has passed.
      const firstWait = Number(refused[0]!.retryAfter);
      expect(firstWait).toBeGreaterThanOrEqual(1);
      expect(firstWait).toBeLessThanOrEqual(6);
      expect(trace.trials).toBe(Math.ceil(firstWait / 2));
      for (const r of refused) {
        expect(r.retryAfter).not.toBeNull();
        expect(r.body.error).toBe("rate_limited");
        expect(r.body.detail).toMatch(WAIT_WORDS);
        expect(r.body.retry_after_seconds).toBe(Number(r.retryAfter));
      }
      expect(result.response_text).toContain("42 million");
    } finally {
      await limited.stop();
    }
  });

  test(`real clock on the configured store (${backendName}): the sampler's real sleeps outlast the refusal`, async () => {
    const { apiKey: freeKey } = await s.app.account({ name: "free-evals-real" });
    // The bucket spans every route: nine cheap calls and one sampler question use up the ten.
    for (let i = 0; i < 9; i++) expect((await s.app.fetch("/v1/account", { headers: { "X-API-Key": freeKey } })).status).toBe(200);
    expect(
      (await critiqueSampler([pack("When was the Eiffel Tower completed?")], { baseUrl: s.app.url, apiKey: freeKey, sleep: realSleep }))
        .result.response_text,
    ).toContain("1889");
    const { result, trace } = await critiqueSampler([pack("When was the Eiffel Tower completed?")], {
      baseUrl: s.app.url,
      apiKey: freeKey,
      sleep: realSleep,
      maxTrials: 10,
    });
    expect(trace.responses[0]!.status).toBe(429);
    expect(Number(trace.responses[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(trace.responses[0]!.body.detail).toMatch(WAIT_WORDS);
    expect(trace.responses.at(-1)!.status).toBe(200);
    expect(trace.sleptSeconds).toBeLessThanOrEqual(10);
    expect(result.response_text).toContain("1889");
  });
});
