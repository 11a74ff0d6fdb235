/**
 * Upstream text never reaches a caller. Whatever a model provider says when
 * it fails (a refused key, a rate limit, an outage, a garbled answer, a
 * stream that breaks mid-answer), whatever a search provider sends instead
 * of its wire format, and whatever the PDF library says about a broken PDF:
 * callers read our codes and sentences on every face (the JSON answer, SSE,
 * the WebSocket, a designed endpoint's run, the designer, contents), and the
 * log holds the provider's words under the call's request id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getDocumentProxy } from "unpdf";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { startAnthropicPeer, type AnthropicPeer } from "../helpers/peers/anthropic.ts";
import { startChatPeer, type ChatPeer, type PeerFailure, type StreamBreak } from "../helpers/peers/openai-compatible.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { openSocket } from "../helpers/websocket.ts";

const SECRET = "SECRET-UPSTREAM-TEXT";
const leaks = (text: string) => text.toLowerCase().includes(SECRET.toLowerCase());

let world: SearchWorld;
let chat: ChatPeer;
let anthropic: AnthropicPeer;
let database: TestDatabase;

interface Face {
  name: string;
  app: TestApp;
  apiKey: string;
  peer: ChatPeer | AnthropicPeer;
  stub: string;
}
const faces: Face[] = [];

/** A search_agent feeding a general_agent: the run's model calls (plan, structured answer) and the graph's own. */
const graphEndpoint = {
  original_prompt: "Given a landmark, find the year it was completed and its designer",
  api_name: "Landmark summary",
  inputs: [{ name: "landmark", type: "string", description: "The landmark's name" }],
  output_format: { completed_year: "integer", designer: "string" },
  graph: {
    nodes: [
      {
        id: "research",
        type: "search_agent",
        name: "Research",
        system_prompt: "Facts about {landmark}",
        output_format: { completed_year: "integer", designer: "string" },
      },
      { id: "combine", type: "general_agent", name: "Combine", system_prompt: "Combine the findings about {landmark}" },
    ],
    edges: [{ id: "e1", source: "research", target: "combine" }],
  },
};

async function appFor(name: string, env: Record<string, string>, peer: ChatPeer | AnthropicPeer): Promise<Face> {
  const app = await startTestApp(database, { env: world.env({ ...env, LLM_VISION: "true" }), resolver: world.resolver });
  const apiKey = (await app.account({ name, limit: 100_000 })).apiKey;
  const created = await jsonOf(
    app.fetch("/v1/design-api", {
      method: "POST",
      headers: { "X-API-Key": apiKey, "content-type": "application/json" },
      body: JSON.stringify(graphEndpoint),
    }),
  );
  return { name, app, apiKey, peer, stub: created.response.stub };
}

beforeAll(async () => {
  world = startSearchWorld();
  chat = startChatPeer();
  anthropic = startAnthropicPeer();
  database = await freshDatabase();
  faces.push(
    await appFor("openai-compatible", { OPENAI_BASE_URL: chat.url, OPENAI_API_KEY: chat.apiKey, LLM_MODEL: "loopback-model" }, chat),
  );
  faces.push(
    await appFor(
      "anthropic",
      { LLM_PROVIDER: "anthropic", ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: anthropic.apiKey, LLM_MODEL: "claude-sonnet-4-5" },
      anthropic,
    ),
  );
});
afterAll(async () => {
  for (const face of faces) await face.app.stop();
  await database.drop();
  world.stop();
  chat.stop();
  anthropic.stop();
});

let sequence = 0;
const requestId = (label: string) => `req_upstream_${label}_${++sequence}`;

/** Every face's whole output as text, with the request id it ran under and its status. */
interface Seen {
  face: string;
  id: string;
  status: number;
  text: string;
}

async function everyFace(face: Face, options: { design: boolean }): Promise<Seen[]> {
  const { app, apiKey } = face;
  const headers = (id: string, extra: Record<string, string> = {}) => ({
    "X-API-Key": apiKey,
    "content-type": "application/json",
    "x-request-id": id,
    ...extra,
  });
  const post = async (label: string, path: string, body: unknown, extra: Record<string, string> = {}): Promise<Seen> => {
    const id = requestId(label);
    const response = await app.fetch(path, { method: "POST", headers: headers(id, extra), body: JSON.stringify(body) });
    return { face: label, id, status: response.status, text: await response.text() };
  };
  const socket = async (): Promise<Seen> => {
    const id = requestId("ws");
    const run = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
      headers: { "X-API-Key": apiKey, "x-request-id": id },
      send: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    const failed = run.messages.some((m) => m.type === "error");
    return { face: "ws", id, status: failed ? 0 : 200, text: `${run.raw.join("\n")}\n${run.closeReason}` };
  };
  const image = Buffer.from(minimalPng()).toString("base64");
  return Promise.all([
    post("json", "/v1/search", { prompt: "When was the Eiffel Tower completed?", image }),
    post("sse", "/v1/search", { prompt: "When was the Eiffel Tower completed?" }, { accept: "text/event-stream" }),
    socket(),
    ...(options.design
      ? [
          post("structured", "/v1/search", {
            prompt: "Eiffel Tower facts",
            output_format: { completed_year: "integer", designer: "string" },
          }),
          post("endpoint", `/v1/user-defined-service/${face.stub}`, { landmark: "Eiffel Tower" }),
          post("design", "/v1/design-api", { original_prompt: "Given a city, find its population and mayor" }),
        ]
      : []),
  ]);
}

function expectInOurWords(face: Face, seen: Seen[]) {
  for (const { face: name, text } of seen) {
    if (leaks(text)) throw new Error(`${face.name} ${name} answered the provider's words: ${text.slice(0, 400)}`);
  }
  // The log has the provider's words, under the request id of every call that met them.
  for (const { face: name, id } of seen) {
    const lines = face.app.logs.filter((line) => line.includes(`"request_id":"${id}"`));
    if (!lines.some(leaks))
      throw new Error(`${face.name} ${name}: no log line under ${id} holds the provider's words:\n${lines.join("\n")}`);
  }
}

const MODEL_FAILURES: { name: string; failure: Omit<PeerFailure, "count"> }[] = [
  { name: "a refused key (401)", failure: { status: 401, message: `invalid x-api-key ${SECRET}` } },
  { name: "a rate limit (429)", failure: { status: 429, message: `rate limited: ${SECRET}`, retryAfterMs: 5 } },
  { name: "an outage (500)", failure: { status: 500, message: `${SECRET} internal failure`, retryAfterMs: 5 } },
  {
    name: "garbage (a 200 that is not the wire format)",
    failure: { status: 200, garbage: `${SECRET} <html>this is not the wire format</html>` },
  },
];

describe("a failing model provider", () => {
  for (const provider of ["openai-compatible", "anthropic"]) {
    for (const { name, failure } of MODEL_FAILURES) {
      test(`${provider}, ${name}: every face answers in our words, the log holds the provider's`, async () => {
        const face = faces.find((f) => f.name === provider)!;
        face.peer.failNext = { ...failure, count: 10_000 };
        try {
          const seen = await everyFace(face, { design: true });
          // The model's failure degrades the answer; it does not fail the call.
          for (const { face: name, status } of seen) expect({ name, status }).toEqual({ name, status: 200 });
          expectInOurWords(face, seen);
          const json = JSON.parse(seen.find((s) => s.face === "json")!.text);
          expect(json.info.notes.join(" ")).toMatch(/planning fell back to key phrases \(model_[a-z_]+: /);
          expect(json.info.image_note).toMatch(/^the image could not be analysed \(model_[a-z_]+: /);
          if (failure.status === 401) expect(json.info.notes.join(" ")).toContain("model_auth_failed");
          const endpoint = JSON.parse(seen.find((s) => s.face === "endpoint")!.text);
          expect(endpoint.info.notes.join(" ")).toMatch(/node "combine": the model failed \(model_[a-z_]+: /);
        } finally {
          face.peer.failNext = null;
        }
      });
    }

    test(`${provider}, a stream that breaks mid-answer: a 503 in our words on every face, the provider's words in the log`, async () => {
      const face = faces.find((f) => f.name === provider)!;
      const broken: StreamBreak =
        provider === "anthropic"
          ? { count: 10_000, type: "overloaded_error", message: `Overloaded ${SECRET}` }
          : { count: 10_000, type: "server_error", message: `${SECRET} went away` };
      face.peer.breakStream = broken;
      try {
        const seen = await everyFace(face, { design: false });
        expectInOurWords(face, seen);
        const json = seen.find((s) => s.face === "json")!;
        expect(json.status).toBe(503);
        expect(JSON.parse(json.text)).toEqual({
          detail: "the language model stopped answering mid-way: the model provider is unavailable",
          error: "service_unavailable",
        });
        expect(seen.find((s) => s.face === "sse")!.text).toContain(
          '"content":"the language model stopped answering mid-way: the model provider is unavailable (service_unavailable)"',
        );
        expect(seen.find((s) => s.face === "ws")!.text).toContain(
          '"content":"the language model stopped answering mid-way: the model provider is unavailable (service_unavailable)"',
        );
      } finally {
        face.peer.breakStream = null;
      }
    });
  }
});

describe("a failing search provider", () => {
  test("an answer that is not JSON is reported in our words; its Content-Type goes to the log", async () => {
    const face = faces[0]!;
    world.searxng.setFault({ status: 200, contentType: `text/html-${SECRET}`, body: `<html>${SECRET}</html>` });
    world.brave.setFault({ status: 500, contentType: "application/json", body: JSON.stringify({ error: SECRET }) });
    try {
      const id = requestId("providers");
      const response = await face.app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": face.apiKey, "content-type": "application/json", "x-request-id": id },
        body: JSON.stringify({ prompt: "river bridge" }),
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(leaks(text)).toBe(false);
      const providers = JSON.parse(text).info.providers as { name: string; errors: string[] }[];
      expect(providers.find((p) => p.name === "searxng")!.errors[0]).toBe("searxng: answered HTML instead of JSON");
      expect(providers.find((p) => p.name === "brave")!.errors[0]).toBe("brave: answered HTTP 500");
      expect(
        face.app.logs.some((line) => line.includes(`"request_id":"${id}"`) && line.includes("search provider failed") && leaks(line)),
      ).toBe(true);
    } finally {
      world.searxng.setFault(null);
      world.brave.setFault(null);
    }
  });
});

describe("a broken PDF", () => {
  test("POST /v1/contents answers 502 pdf_unreadable in our words, never the PDF library's", async () => {
    const face = faces[0]!;
    const broken = `%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF ${SECRET}`;
    const libraryWords = await getDocumentProxy(new TextEncoder().encode(broken)).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(libraryWords.length).toBeGreaterThan(0);
    world.site.put("/broken.pdf", broken, { "content-type": "application/pdf" });
    const response = await face.app.fetch("/v1/contents", {
      method: "POST",
      headers: { "X-API-Key": face.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ url: world.url("news.test", "/broken.pdf") }),
    });
    expect(response.status).toBe(502);
    const body = await jsonOf(response);
    expect(body).toEqual({ detail: "the PDF could not be read", error: "pdf_unreadable" });
    expect(JSON.stringify(body)).not.toContain(libraryWords);
    // The library's words cross the extraction worker and reach the call's log line.
    const id = response.headers.get("x-request-id")!;
    const logged = face.app.logs.filter((line) => line.includes(`"request_id":"${id}"`));
    expect(logged.some((line) => line.includes(JSON.stringify(libraryWords).slice(1, -1)))).toBe(true);
  });
});
