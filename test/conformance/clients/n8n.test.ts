/**
 * The n8n community node critique-ai/critique-n8n-plugin (v0.1.1), as n8n runs it:
 * nodes/CritiqueApi/CritiqueApi.node.ts builds the request, n8n's
 * helpers.httpRequest sends it through axios (json: true adds
 * `Accept: application/json`, n8n adds `User-Agent: n8n`, axios
 * serialises the body with JSON.stringify) and throws on any non-2xx;
 * credentials/CritiqueApiCredentialsApi.credentials.ts tests a key with
 * POST /v1/search {"prompt": "test"} and needs a 2xx. The only change a
 * user makes is the base URL (the node hard-codes https://api.critique-labs.ai).
 */
import { describe, expect, test } from "bun:test";
import { minimalPng } from "../../helpers/fixtures/images.ts";
import { useSearchApp } from "../search-app.ts";
import { citationsOf } from "./wire.ts";

const s = useSearchApp();

/** What n8n's httpRequest throws for a non-2xx (axios' default validateStatus). */
class N8nHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(`Request failed with status code ${status}`);
  }
}

/** NodeOperationError: thrown by the node itself before any request. */
class NodeOperationError extends Error {}

interface N8nRequestOptions {
  method: "POST";
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  json: true;
}

/** n8n-core's httpRequest for the options the node passes: axios under the hood, 2xx or throw, JSON parsed when it parses. */
async function n8nHttpRequest(options: N8nRequestOptions): Promise<any> {
  const headers: Record<string, string> = { ...options.headers };
  const has = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);
  if (options.json && !has("accept")) headers.Accept = "application/json";
  if (!has("user-agent")) headers["User-Agent"] = "n8n";
  headers["Accept-Encoding"] = "gzip, compress, deflate, br";
  const response = await fetch(options.url, { method: options.method, headers, body: JSON.stringify(options.body) });
  const text = await response.text();
  let data: any = text;
  try {
    data = JSON.parse(text);
  } catch {
    // axios keeps an unparseable body as the string
  }
  if (response.status < 200 || response.status >= 300) throw new N8nHttpError(response.status, data);
  return data;
}

interface N8nSearchParameters {
  operation: "search";
  prompt: string;
  /** The node's string fields default to "" and are then left out of the body. */
  image?: string;
  sourceBlacklist?: string;
  sourceWhitelist?: string;
  /** A "json" parameter: a JSON string the node parses. */
  outputFormat?: string;
}
interface N8nContentParameters {
  operation: "getContent";
  url: string;
}

/** The node's execute() for one item: the body built as the node builds it, sent to the changed base URL. */
async function n8nExecute(key: string, params: N8nSearchParameters | N8nContentParameters): Promise<any> {
  const base = s.app.url;
  const headers = { "X-API-Key": key, "Content-Type": "application/json" };
  if (params.operation === "getContent") {
    return n8nHttpRequest({ method: "POST", url: `${base}/v1/contents`, headers, body: { url: params.url }, json: true });
  }
  const { prompt, image = "", sourceBlacklist = "", sourceWhitelist = "", outputFormat = "" } = params;
  const body: Record<string, unknown> = { prompt };
  if (image) body.image = image;
  if (sourceBlacklist) body.source_blacklist = sourceBlacklist.split(",").map((s) => s.trim());
  if (sourceWhitelist) body.source_whitelist = sourceWhitelist.split(",").map((s) => s.trim());
  if (outputFormat) {
    try {
      body.output_format = JSON.parse(outputFormat);
    } catch (error) {
      throw new NodeOperationError(`Invalid JSON in output format: ${(error as Error).message}`);
    }
  }
  return n8nHttpRequest({ method: "POST", url: `${base}/v1/search`, headers, body, json: true });
}

/** The credential's test request: a 2xx means "Connection tested successfully". */
async function n8nCredentialTest(key: string): Promise<{ status: "OK" } | { status: "Error"; message: string }> {
  try {
    await n8nHttpRequest({
      method: "POST",
      url: `${s.app.url}/v1/search`,
      headers: { "X-API-Key": key, "Content-Type": "application/json" },
      body: { prompt: "test" },
      json: true,
    });
    return { status: "OK" };
  } catch (error) {
    return { status: "Error", message: (error as Error).message };
  }
}

/** What a workflow reads from a text answer: the answer, its [n] citations, and the sources they point at. */
function expectCitedAnswer(result: any) {
  expect(typeof result.response).toBe("string");
  expect(result.response.trim().length).toBeGreaterThan(0);
  expect(Array.isArray(result.context)).toBe(true);
  expect(result.context.length).toBeGreaterThan(0);
  const ids = new Set(result.context.map((c: any) => c.id));
  for (const entry of result.context) {
    expect(Number.isInteger(entry.id)).toBe(true);
    expect(typeof entry.metadata.url).toBe("string");
    expect(typeof entry.metadata.title).toBe("string");
    expect(typeof entry.metadata.content).toBe("string");
  }
  const cited = citationsOf(result.response);
  expect(cited.length).toBeGreaterThan(0);
  for (const n of cited) expect(ids.has(n)).toBe(true);
}

const urlsOf = (result: any): string[] => result.context.map((c: any) => c.metadata.url);

describe("n8n: the credential test", () => {
  test('POST /v1/search {"prompt": "test"} with a good key answers 2xx: the credential saves', async () => {
    expect(await n8nCredentialTest(s.apiKey)).toEqual({ status: "OK" });
  });

  test("a wrong or empty key fails the credential test (401)", async () => {
    for (const key of ["sk_live_not_a_real_key", ""]) {
      const outcome = await n8nCredentialTest(key);
      expect(outcome).toEqual({ status: "Error", message: "Request failed with status code 401" });
    }
  });
});

describe("n8n: the Search operation", () => {
  test("only a prompt: a cited text answer with its sources, token_usage a number", async () => {
    const result = await n8nExecute(s.apiKey, { operation: "search", prompt: "When was the Eiffel Tower completed?" });
    expectCitedAnswer(result);
    expect(result.response).toContain("1889");
    expect(urlsOf(result)).toContain(s.world.url("wiki.test", "/eiffel.html"));
    expect(typeof result.info.token_usage).toBe("number");
    expect(result.info.token_usage).toBeGreaterThan(0);
    expect(result.error).toBeUndefined();
  });

  test("Source Blacklist 'spam.test, wiki.test' is split on commas and trimmed; those domains never appear", async () => {
    const result = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "What will the river bridge cost?",
      sourceBlacklist: "spam.test, wiki.test",
    });
    expectCitedAnswer(result);
    for (const url of urlsOf(result)) expect(["spam.test", "wiki.test"]).not.toContain(new URL(url).hostname);
  });

  test("Source Whitelist ' blog.test ' keeps every source inside it", async () => {
    const result = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "What will the river bridge cost?",
      sourceWhitelist: " blog.test ",
    });
    expectCitedAnswer(result);
    for (const url of urlsOf(result)) expect(new URL(url).hostname).toBe("blog.test");
    expect(result.response).toContain("42 million");
  });

  test("Output Format (JSON) given as a JSON string: the response is an object of that shape", async () => {
    const result = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "Facts about the Eiffel Tower",
      outputFormat: '{"completed_year": "integer", "height_metres": "number", "designer": "string"}',
    });
    expect(typeof result.response).toBe("object");
    expect(result.response).not.toBeNull();
    expect(Object.keys(result.response).sort()).toEqual(["completed_year", "designer", "height_metres"]);
    expect(result.response.completed_year).toBe(1889);
    expect(result.response.height_metres).toBe(330);
    expect(result.context.length).toBeGreaterThan(0);
  });

  test("a nested Output Format with a one-item array of items comes back in that shape", async () => {
    const result = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "Facts about the Eiffel Tower",
      outputFormat: '{"tower": {"name": "string", "completed_year": "integer"}, "sources": [{"title": "string"}]}',
    });
    expect(Object.keys(result.response).sort()).toEqual(["sources", "tower"]);
    expect(result.response.tower).toMatchObject({ completed_year: 1889 });
    expect(typeof result.response.tower.name).toBe("string");
    // Every field is present; null means the sources do not say (a list of source titles is not in the pages).
    if (result.response.sources !== null) expect(Array.isArray(result.response.sources)).toBe(true);
  });

  test("Image as raw base64 and as a data URL: accepted, the answer still comes back", async () => {
    const base64 = Buffer.from(minimalPng()).toString("base64");
    for (const image of [base64, `data:image/png;base64,${base64}`]) {
      const result = await n8nExecute(s.apiKey, { operation: "search", prompt: "When was the Eiffel Tower completed?", image });
      expectCitedAnswer(result);
      expect(result.info.image_analysed).toBe(false);
    }
  });

  test("every option at once (whitelist, image, output format) in one call", async () => {
    const result = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "What will the river bridge cost?",
      image: Buffer.from(minimalPng()).toString("base64"),
      sourceWhitelist: "blog.test,news.test",
      outputFormat: '{"cost": "string", "opening_year": "integer"}',
    });
    expect(typeof result.response).toBe("object");
    expect(Object.keys(result.response).sort()).toEqual(["cost", "opening_year"]);
    for (const url of urlsOf(result)) expect(["blog.test", "news.test"]).toContain(new URL(url).hostname);
  });

  // Not a target yet: the node splits "spam.test, " into ["spam.test", ""], and the service refuses the empty
  // entry with 422 (string_too_short at source_blacklist[1]), so a trailing comma in the field fails the node.
  test("a trailing comma in Source Blacklist ('spam.test, ') still searches: the blank entry is ignored, the domain still applies", async () => {
    const result = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "What will the river bridge cost?",
      sourceBlacklist: "spam.test, ",
    });
    expectCitedAnswer(result);
    expect(urlsOf(result).some((url) => new URL(url).hostname === "spam.test")).toBe(false);
  });

  test("a Source Whitelist of only blanks (', ') is no whitelist, so a Source Blacklist beside it is no conflict", async () => {
    const result = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "What will the river bridge cost?",
      sourceWhitelist: ", ",
      sourceBlacklist: "spam.test",
    });
    expectCitedAnswer(result);
  });

  test("an Output Format that is not JSON fails in the node itself, before any request", async () => {
    const before = s.world.searxng.requests.length;
    await expect(n8nExecute(s.apiKey, { operation: "search", prompt: "x", outputFormat: "{not json" })).rejects.toBeInstanceOf(
      NodeOperationError,
    );
    expect(s.world.searxng.requests.length).toBe(before);
  });

  test("both lists filled in: a 422 the node surfaces as a thrown error", async () => {
    const failure = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "river bridge",
      sourceWhitelist: "blog.test",
      sourceBlacklist: "spam.test",
    }).catch((e) => e);
    expect(failure).toBeInstanceOf(N8nHttpError);
    expect(failure.status).toBe(422);
    expect(failure.body.detail[0].loc).toEqual(["body", "source_whitelist"]);
  });

  test("an Image URL over plain http is refused with 422 (SPEC 2.1: https only) and the node throws", async () => {
    const failure = await n8nExecute(s.apiKey, {
      operation: "search",
      prompt: "What is this?",
      image: "http://images.test/photo.png",
    }).catch((e) => e);
    expect(failure).toBeInstanceOf(N8nHttpError);
    expect(failure.status).toBe(422);
    expect(failure.body.detail[0].loc).toEqual(["body", "image"]);
  });
});

describe("n8n: the Get Content operation", () => {
  test("POST /v1/contents {\"url\"}: the page's processed content comes back as the item's JSON", async () => {
    const url = s.world.url("wiki.test", "/eiffel.html");
    const result = await n8nExecute(s.apiKey, { operation: "getContent", url });
    expect(result.url).toBe(url);
    expect(result.title).toBe("Eiffel Tower");
    expect(typeof result.content).toBe("string");
    expect(result.content).toContain("completed in 1889");
  });

  test("a URL the service will not fetch is a non-2xx, which the node throws", async () => {
    const failure = await n8nExecute(s.apiKey, { operation: "getContent", url: "http://127.0.0.1:9/secret" }).catch((e) => e);
    expect(failure).toBeInstanceOf(N8nHttpError);
    expect(failure.status).toBeGreaterThanOrEqual(400);
  });

  test("an empty URL (the field's default) is a 422 the node throws", async () => {
    const failure = await n8nExecute(s.apiKey, { operation: "getContent", url: "" }).catch((e) => e);
    expect(failure).toBeInstanceOf(N8nHttpError);
    expect(failure.status).toBe(422);
  });
});
