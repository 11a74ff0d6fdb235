/**
 * One failure, three faces: the JSON answer, the SSE stream and the
 * WebSocket report the same status and code for the same failure, to the
 * client (the HTTP status and the body's `error`; a stream's error text ends
 * with the code in parentheses, and the socket's close reason is the code)
 * and in the usage record. Before, SSE recorded 500 for every failure, the
 * socket chose statuses by hand, and neither stream said a code.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startChatPeer, type ChatPeer } from "../helpers/peers/openai-compatible.ts";
import { parseEvents } from "../conformance/search-app.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";
import { openSocket } from "../helpers/websocket.ts";

let world: SearchWorld;
let peer: ChatPeer;
let database: TestDatabase;
let app: TestApp;
let apiKey: string;

beforeAll(async () => {
  world = startSearchWorld();
  peer = startChatPeer();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({
      OPENAI_BASE_URL: peer.url,
      OPENAI_API_KEY: peer.apiKey,
      LLM_MODEL: "loopback-model",
      SEARCH_DEADLINE_MS: "1500",
      PROVIDER_TIMEOUT_MS: "10000",
      SEARCH_HEDGING: "false",
    }),
    resolver: world.resolver,
  });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
  peer.stop();
});

interface Outcome {
  /** What the client was told: the HTTP status (a stream that started says 200 and ends with an error). */
  status: number;
  /** The code the client read: the JSON `error` (validation_failed for a 422's detail list), a stream error's code, or "done". */
  code: string;
  /** The status on the call's usage record. */
  recorded: number;
}

let sequence = 0;
const CODE_IN_TEXT = /\(([a-z0-9_]+)\)$/;

async function recordedStatus(requestId: string): Promise<number> {
  const row = await waitFor(
    () => app.db.query.usageRecords.findFirst({ where: (u, { eq }) => eq(u.requestId, requestId) }),
    `the usage record of ${requestId}`,
  );
  return row.status;
}

function jsonCode(status: number, body: { error?: string; detail?: unknown }): string {
  if (typeof body.error === "string") return body.error;
  return status === 422 && Array.isArray(body.detail) ? "validation_failed" : "done";
}

async function viaJson(body: unknown): Promise<Outcome> {
  const id = `req_faces_json_${++sequence}`;
  const response = await app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": apiKey, "content-type": "application/json", "x-request-id": id },
    body: JSON.stringify(body),
  });
  return { status: response.status, code: jsonCode(response.status, await response.json()), recorded: await recordedStatus(id) };
}

async function viaSse(body: unknown): Promise<Outcome> {
  const id = `req_faces_sse_${++sequence}`;
  const response = await app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": apiKey, "content-type": "application/json", accept: "text/event-stream", "x-request-id": id },
    body: JSON.stringify(body),
  });
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return { status: response.status, code: jsonCode(response.status, await response.json()), recorded: await recordedStatus(id) };
  }
  const last = parseEvents(await response.text()).at(-1)!;
  const code = last.event === "error" ? (CODE_IN_TEXT.exec(last.data.content)?.[1] ?? "uncoded") : "done";
  return { status: response.status, code, recorded: await recordedStatus(id) };
}

async function viaSocket(body: unknown): Promise<Outcome> {
  const id = `req_faces_ws_${++sequence}`;
  const run = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
    headers: { "X-API-Key": apiKey, "x-request-id": id },
    send: JSON.stringify(body),
  });
  const last = run.messages.at(-1)!;
  expect(run.closeCode).toBe(1000);
  if (last.type === "error") {
    // A coded text names the same code as the close; a 422's text lists its problems instead.
    const inText = CODE_IN_TEXT.exec(last.content as string)?.[1];
    if (inText) expect(inText).toBe(run.closeReason!);
    else expect(run.closeReason).toBe("validation_failed");
  } else expect(run.closeReason).toBe("done");
  return { status: 200, code: run.closeReason ?? "none", recorded: await recordedStatus(id) };
}

/** The three faces' outcomes for one body, run at once (the peers' faults last for the whole test). */
async function threeFaces(body: unknown): Promise<{ json: Outcome; sse: Outcome; socket: Outcome }> {
  const [json, sse, socket] = await Promise.all([viaJson(body), viaSse(body), viaSocket(body)]);
  return { json, sse, socket };
}

describe("the same failure, the same status and code on every face", () => {
  test("a run past the deadline: 504 deadline_exceeded", async () => {
    world.searxng.setLatency(3_000);
    world.brave.setLatency(3_000);
    try {
      const { json, sse, socket } = await threeFaces({ prompt: "river bridge" });
      expect(json).toEqual({ status: 504, code: "deadline_exceeded", recorded: 504 });
      expect(sse).toEqual({ status: 200, code: "deadline_exceeded", recorded: 504 });
      expect(socket).toEqual({ status: 200, code: "deadline_exceeded", recorded: 504 });
    } finally {
      world.searxng.setLatency(0);
      world.brave.setLatency(0);
    }
  });

  test("a bad input: 422 (validation_failed) on every face and in usage", async () => {
    const { json, sse, socket } = await threeFaces({ prompt: "river bridge", output_format: { cost: "text" } });
    expect(json).toEqual({ status: 422, code: "validation_failed", recorded: 422 });
    expect(sse).toEqual({ status: 422, code: "validation_failed", recorded: 422 });
    expect(socket).toEqual({ status: 200, code: "validation_failed", recorded: 422 });
  });

  test("a model that refuses the service's key: the answer degrades, 200 on every face and in usage", async () => {
    peer.failNext = { status: 401, count: 10_000, message: "Incorrect API key provided" };
    try {
      const { json, sse, socket } = await threeFaces({ prompt: "What will the river bridge cost?" });
      expect(json).toEqual({ status: 200, code: "done", recorded: 200 });
      expect(sse).toEqual({ status: 200, code: "done", recorded: 200 });
      expect(socket).toEqual({ status: 200, code: "done", recorded: 200 });
    } finally {
      peer.failNext = null;
    }
  });

  test("a model provider outage mid-answer: 503 service_unavailable on every face and in usage", async () => {
    peer.breakStream = { count: 10_000, type: "server_error", message: "upstream went away" };
    try {
      const { json, sse, socket } = await threeFaces({ prompt: "What will the river bridge cost?" });
      expect(json).toEqual({ status: 503, code: "service_unavailable", recorded: 503 });
      expect(sse).toEqual({ status: 200, code: "service_unavailable", recorded: 503 });
      expect(socket).toEqual({ status: 200, code: "service_unavailable", recorded: 503 });
    } finally {
      peer.breakStream = null;
    }
  });

  test("every search provider down: the answer degrades, 200 on every face and in usage", async () => {
    world.searxng.setFault("500");
    world.brave.setFault("500");
    try {
      const { json, sse, socket } = await threeFaces({ prompt: "What will the river bridge cost?" });
      expect(json).toEqual({ status: 200, code: "done", recorded: 200 });
      expect(sse).toEqual({ status: 200, code: "done", recorded: 200 });
      expect(socket).toEqual({ status: 200, code: "done", recorded: 200 });
    } finally {
      world.searxng.setFault(null);
      world.brave.setFault(null);
    }
  });
});
