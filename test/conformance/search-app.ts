/**
 * The app a conformance file talks to: the real app over a fresh database,
 * searching the loopback search world, with one roomy key (the limit is not
 * what most clauses test). `useSearchApp()` registers the hooks and returns
 * getters, so a file reads `s.app`, `s.search(body)`, `s.socket(body)`.
 */
import { afterAll, beforeAll } from "bun:test";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { openSocket, type SocketRun } from "../helpers/websocket.ts";

export interface SearchApp {
  readonly app: TestApp;
  readonly world: SearchWorld;
  readonly database: TestDatabase;
  readonly apiKey: string;
  readonly wsUrl: string;
  /** POST /v1/search with the roomy key (or `key`), JSON in. */
  search(body: unknown, headers?: Record<string, string>, key?: string): Promise<Response>;
  /** POST /v1/search asking for server-sent events; the events as `{event, data}`. */
  events(body: unknown): Promise<{ status: number; contentType: string; events: { event: string; data: any }[] }>;
  /** One WebSocket search: `body` sent as JSON (a string is sent as is). */
  socket(body: unknown, key?: string): Promise<SocketRun>;
  call(method: string, path: string, body?: unknown, key?: string): Promise<Response>;
}

export function parseEvents(text: string): { event: string; data: any }[] {
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("event:"))
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))!.slice(7);
      const data = JSON.parse(lines.find((l) => l.startsWith("data: "))!.slice(6));
      return { event, data };
    });
}

export function useSearchApp(env: Record<string, string> = {}): SearchApp {
  let app: TestApp;
  let world: SearchWorld;
  let database: TestDatabase;
  let apiKey: string;
  beforeAll(async () => {
    world = startSearchWorld();
    database = await freshDatabase();
    app = await startTestApp(database, { env: world.env(env), resolver: world.resolver });
    apiKey = (await app.account({ name: "conformance", limit: 100_000 })).apiKey;
  });
  afterAll(async () => {
    await app.stop();
    await database.drop();
    world.stop();
  });
  const call = (method: string, path: string, body?: unknown, key = apiKey) =>
    app.fetch(path, {
      method,
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    get app() {
      return app;
    },
    get world() {
      return world;
    },
    get database() {
      return database;
    },
    get apiKey() {
      return apiKey;
    },
    get wsUrl() {
      return `${app.url.replace("http", "ws")}/v1/ws/search`;
    },
    search: (body, headers = {}, key = apiKey) =>
      app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": key, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      }),
    async events(body) {
      const response = await app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(body),
      });
      const contentType = response.headers.get("content-type") ?? "";
      const text = await response.text();
      return { status: response.status, contentType, events: contentType.includes("text/event-stream") ? parseEvents(text) : [] };
    },
    socket: (body, key = apiKey) =>
      openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
        headers: { "X-API-Key": key },
        send: typeof body === "string" ? body : JSON.stringify(body),
      }),
    call,
  };
}
