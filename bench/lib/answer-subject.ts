/**
 * An app under the answer bench, from any checkout of the project: its own
 * test/helpers/app.ts, test/helpers/database.ts and StaticResolver, imported
 * from that checkout, so an older commit runs its own code in this process
 * beside the current one. Each gets the embedded database the tests use,
 * the in-memory limiter, the loopback web's search peer and pages, and no
 * language model.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AnswerWeb } from "./answer-web.ts";
import type { ContextEntry } from "./answer-scoring.ts";

export interface SearchReply {
  status: number;
  ms: number;
  response: unknown;
  context: ContextEntry[];
  /** info.model: "extractive" when no model answered. */
  model: string | undefined;
  error?: string;
}

export interface Subject {
  label: string;
  /** Hits the app takes from each query (SEARCH_RESULTS_PER_QUERY): the peer's ranks past it are never seen. */
  resultsPerQuery: number;
  search(body: { prompt: string; output_format?: Record<string, unknown> }): Promise<SearchReply>;
  stop(): Promise<void>;
}

const MODULES = {
  app: { path: "test/helpers/app.ts", exports: ["startTestApp"] },
  database: { path: "test/helpers/database.ts", exports: ["freshDatabase"] },
  resolver: { path: "src/contents/egress/resolver.ts", exports: ["StaticResolver"] },
} as const;

const TIMEOUT_MS = 120_000;

/** The modules a checkout must have, or why it cannot be benched. */
export function checkoutProblems(root: string): string[] {
  return Object.values(MODULES)
    .filter((m) => !existsSync(join(root, m.path)))
    .map((m) => `${root} has no ${m.path}`);
}

async function load<T>(root: string, module: (typeof MODULES)[keyof typeof MODULES]): Promise<T> {
  const loaded = (await import(join(root, module.path))) as Record<string, unknown>;
  for (const name of module.exports)
    if (typeof loaded[name] !== "function") throw new Error(`${join(root, module.path)} does not export ${name} as a function`);
  return loaded as T;
}

export async function startSubject(checkout: string, label: string, web: AnswerWeb): Promise<Subject> {
  // Absolute: a relative specifier would be read from this file's folder, not the shell's.
  const root = resolve(checkout);
  const problems = checkoutProblems(root);
  if (problems.length) throw new Error(problems.join("; "));
  // The embedded database and the in-memory limiter, as `bun test` makes them without these; read when database.ts loads.
  delete process.env.TEST_DATABASE_URL;
  delete process.env.TEST_REDIS_URL;
  const { startTestApp } = await load<typeof import("../../test/helpers/app.ts")>(root, MODULES.app);
  const { freshDatabase } = await load<typeof import("../../test/helpers/database.ts")>(root, MODULES.database);
  const { StaticResolver } = await load<typeof import("../../src/contents/egress/resolver.ts")>(root, MODULES.resolver);
  const database = await freshDatabase();
  const app = await startTestApp(database, {
    store: "memory",
    resolver: new StaticResolver(web.hostAnswers),
    // Only these settings reach loadConfig: no model key from this shell's environment can.
    env: {
      LOG_LEVEL: "warn",
      LLM_PROVIDER: "none",
      SEARCH_PROVIDERS: "searxng",
      SEARXNG_URL: web.searxng.url,
      FETCH_ALLOW_HOSTS: web.allowHosts,
    },
  });
  const { apiKey } = await app.account({ name: "bench-answers", limit: 100_000 });
  return {
    label,
    resultsPerQuery: app.config.search.resultsPerQuery,
    async search(body) {
      const started = performance.now();
      try {
        const response = await app.fetch("/v1/search", {
          method: "POST",
          headers: { "X-API-Key": apiKey, "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        const json = (await response.json().catch(() => ({}))) as {
          response?: unknown;
          context?: ContextEntry[];
          info?: { model?: string };
        };
        const ms = performance.now() - started;
        return { status: response.status, ms, response: json.response ?? null, context: json.context ?? [], model: json.info?.model };
      } catch (error) {
        const ms = performance.now() - started;
        return { status: 0, ms, response: null, context: [], model: undefined, error: (error as Error).message };
      }
    },
    async stop() {
      await app.stop();
      await database.drop();
    },
  };
}
