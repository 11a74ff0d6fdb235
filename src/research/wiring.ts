/** The engine's parts, chosen by configuration: the search providers, the language model, the settings. */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { LocalIndex } from "../contents/local-index.ts";
import type { ContentsContext } from "../contents/service.ts";
import type { Logger } from "../log.ts";
import { gaugeOf } from "../observe/weak-gauge.ts";
import { CircuitBreaker } from "./breaker.ts";
import { CallLatencies } from "./call-latencies.ts";
import type { EngineDeps, EngineSettings } from "./engine.ts";
import { PassageCache } from "./passage-cache.ts";
import type { LlmPort } from "./llm/port.ts";
import { BraveSource } from "./sources/brave.ts";
import { ExaSource } from "./sources/exa.ts";
import { LocalSource } from "./sources/local.ts";
import { SearxngSource } from "./sources/searxng.ts";
import type { SearchSource } from "./sources/source.ts";
import { TavilySource } from "./sources/tavily.ts";
import { WikipediaSource } from "./sources/wikipedia.ts";

export function searchSources(search: Config["search"], localIndex: LocalIndex, userAgent: string): SearchSource[] {
  return search.providers.map((name): SearchSource => {
    switch (name) {
      case "local":
        return new LocalSource(localIndex);
      case "searxng":
        return new SearxngSource({ baseUrl: search.searxngUrl! });
      case "brave":
        return new BraveSource({ apiKey: search.brave.apiKey!, baseUrl: search.brave.url });
      case "tavily":
        return new TavilySource({ apiKey: search.tavily.apiKey!, baseUrl: search.tavily.url });
      case "exa":
        return new ExaSource({ apiKey: search.exa.apiKey!, baseUrl: search.exa.url });
      case "wikipedia":
        return new WikipediaSource({ baseUrl: search.wikipediaUrl, userAgent });
    }
  });
}

export function languageModel(llm: Config["llm"]): LlmPort | null {
  if (!llm) return null;
  // Loaded here, not imported: the AI SDK and its providers (some 20 MB resident) stay out of a server without a model.
  const { AiSdkLlm } = require("./llm/ai-sdk.ts") as typeof import("./llm/ai-sdk.ts");
  return new AiSdkLlm(llm);
}

export function engineSettings(search: Config["search"]): EngineSettings {
  return {
    fanout: {
      providerTimeoutMs: search.providerTimeoutMs,
      hedgeAfterMs: search.hedgeAfterMs,
      resultsPerQuery: search.resultsPerQuery,
      hedging: search.hedging,
      quorum: { ...search.quorum },
    },
    read: {
      maxPages: search.readPages,
      concurrency: search.readConcurrency,
      budgetMs: search.readBudgetMs,
      early: search.earlyReads,
      grace: { ...search.readGrace },
    },
    rank: { tokenBudget: search.tokenBudget, maxPassages: search.maxPassages },
    imageMaxBytes: search.imageMaxBytes,
  };
}

export function engineDeps(
  config: Pick<Config, "search" | "llm" | "fetch">,
  parts: { contents: ContentsContext; clock: Clock; log: Logger },
): EngineDeps {
  const sources = searchSources(config.search, new LocalIndex(parts.contents.db), config.fetch.userAgent);
  const breakers = new Map(sources.map((s) => [s.name, new CircuitBreaker(parts.clock)]));
  for (const [provider, breaker] of breakers) gaugeOf(breaker, "provider_breaker_state", (b) => b.state(), { provider });
  return {
    sources,
    contents: parts.contents,
    passages: new PassageCache(),
    llm: languageModel(config.llm),
    breakers,
    latencies: new Map(sources.map((s) => [s.name, new CallLatencies()])),
    readTimes: new CallLatencies(),
    settings: engineSettings(config.search),
    log: parts.log,
  };
}
