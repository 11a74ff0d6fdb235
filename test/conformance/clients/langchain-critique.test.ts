/**
 * langchain-critique (parthh01/langchain-critique) as of its December 2024
 * code that called the API: commit ac5f67f (2024-12-17), file
 * langchain_critique/tools.py; the next commit replaced the calls with mocks.
 * Every call is python-requests with headers {"X-API-Key", "Content-Type":
 * "application/json"} and a base_url the user sets.
 *
 * - CritiqueSearchTool: the input schema accepts an image only as an http(s)
 *   URL ending .jpg/.jpeg/.png/.gif or a `data:image...` URL. An http(s) URL
 *   is downloaded by the tool and re-sent as `data:image/jpeg;base64,<bytes>`
 *   whatever the real type. The body is always {"prompt", "source_blacklist":
 *   <list or []>, "output_format": <dict or {}>} plus "image" when there is
 *   one. Any status but 200 raises ValueError("Search failed: <text>"); the
 *   tool returns response.json() as is.
 * - CritiqueAPIDesignTool: create is POST /v1/design-api {"original_prompt",
 *   "id": null}; list is GET /v1/design-api; delete is DELETE
 *   /v1/design-api/{api_id} (api_id typed str); update is POST
 *   /v1/design-api {"id", "prompt", "schema_updates"}. Any status but 200
 *   raises ValueError("API design operation failed: <text>").
 * - CritiqueDynamicAPITool: POST /v1/user-defined-service/{api_id} with the
 *   tool's arguments as the body; any status but 200 raises.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { minimalPng } from "../../helpers/fixtures/images.ts";
import { useSearchApp } from "../search-app.ts";
import { citationsOf, pyRequest, startImageHost } from "./wire.ts";

const s = useSearchApp();
let images: ReturnType<typeof startImageHost>;
beforeAll(() => {
  images = startImageHost();
});
afterAll(() => images.stop());

/** The Python ValueError the tools raise (pydantic's ValidationError is one too). */
class ValueError extends Error {}

/** Every body the tools sent, as the server received its bytes (for the "exactly this" checks). */
const sent: { method: string; path: string; body: string | undefined }[] = [];

function toolHeaders(key: string) {
  return { "X-API-Key": key, "Content-Type": "application/json" };
}

async function send(method: string, path: string, key: string, json?: unknown) {
  const response = await pyRequest(method, `${s.app.url}${path}`, { headers: toolHeaders(key), json });
  sent.push({ method, path, body: json === undefined ? undefined : JSON.stringify(json) });
  return response;
}

interface SearchInput {
  prompt: string;
  image?: string | null;
  source_blacklist?: string[] | null;
  output_format?: Record<string, unknown> | null;
}

/** CritiqueSearchInput's image validator (pydantic, run on invoke). */
function validateImage(image: string | null | undefined): void {
  if (image === null || image === undefined) return;
  if (image.startsWith("http")) {
    let parsed: URL;
    try {
      parsed = new URL(image);
    } catch {
      throw new ValueError("Invalid image URL: Invalid URL format");
    }
    if (!parsed.protocol || !parsed.host) throw new ValueError("Invalid image URL: Invalid URL format");
    if (![".jpg", ".jpeg", ".png", ".gif"].some((ext) => image.toLowerCase().endsWith(ext)))
      throw new ValueError("Invalid image URL: URL must point to an image file");
  } else if (image.startsWith("data:image")) {
    if (!image.includes(",")) throw new ValueError("Invalid base64 image format");
  } else {
    throw new ValueError("Image must be either a URL or base64 encoded string");
  }
}

/** CritiqueSearchTool.invoke(input): schema validation, then _run. */
async function critiqueSearchTool(input: SearchInput, key = s.apiKey): Promise<any> {
  validateImage(input.image);
  let image = input.image ?? null;
  if (image?.startsWith("http")) {
    // _image_to_base64: a plain requests.get, whatever the type, labelled JPEG.
    const download = await pyRequest("GET", image, { headers: {} });
    if (download.status_code !== 200) throw new ValueError(`Failed to fetch image. Status code: ${download.status_code}`);
    image = `data:image/jpeg;base64,${Buffer.from(download.content).toString("base64")}`;
  }
  const payload: Record<string, unknown> = {
    prompt: input.prompt,
    source_blacklist: input.source_blacklist?.length ? input.source_blacklist : [],
    output_format: input.output_format && Object.keys(input.output_format).length ? input.output_format : {},
  };
  if (image) payload.image = image;
  const response = await send("POST", "/v1/search", key, payload);
  if (response.status_code !== 200) throw new ValueError(`Search failed: ${response.text}`);
  return response.json();
}

type DesignInput =
  | { operation: "create"; prompt?: string }
  | { operation: "list" }
  | { operation: "delete"; api_id?: string }
  | { operation: "update"; api_id?: string; prompt?: string; schema_updates?: Record<string, unknown> | null };

/** CritiqueAPIDesignTool.invoke(input). api_id is typed Optional[str]: pydantic v2 refuses an int there. */
async function critiqueApiDesignTool(input: DesignInput, key = s.apiKey): Promise<any> {
  if ("api_id" in input && input.api_id !== undefined && typeof input.api_id !== "string")
    throw new ValueError("api_id: Input should be a valid string");
  const endpoint = "/v1/design-api";
  let response;
  if (input.operation === "list") response = await send("GET", endpoint, key);
  else if (input.operation === "delete") {
    if (!input.api_id) throw new ValueError("api_id is required for delete operation");
    response = await send("DELETE", `${endpoint}/${input.api_id}`, key);
  } else if (input.operation === "create") {
    if (!input.prompt) throw new ValueError("prompt is required for create operation");
    response = await send("POST", endpoint, key, { original_prompt: input.prompt, id: null });
  } else {
    if (!input.api_id) throw new ValueError("api_id is required for update operation");
    response = await send("POST", endpoint, key, {
      id: input.api_id,
      prompt: input.prompt ?? null,
      schema_updates: input.schema_updates ?? null,
    });
  }
  if (response.status_code !== 200) throw new ValueError(`API design operation failed: ${response.text}`);
  return response.json();
}

/** CritiqueDynamicAPITool(api_id=...)._run(**kwargs). */
async function critiqueDynamicApiTool(apiId: string, kwargs: Record<string, unknown>, key = s.apiKey): Promise<any> {
  const response = await send("POST", `/v1/user-defined-service/${apiId}`, key, kwargs);
  if (response.status_code !== 200) throw new ValueError(`API execution failed: ${response.text}`);
  return response.json();
}

function expectCitedText(result: any) {
  expect(typeof result.response).toBe("string");
  expect(result.response.trim().length).toBeGreaterThan(0);
  expect(result.context.length).toBeGreaterThan(0);
  for (const entry of result.context) {
    expect(Number.isInteger(entry.id)).toBe(true);
    expect(typeof entry.metadata.url).toBe("string");
  }
  const cited = citationsOf(result.response);
  expect(cited.length).toBeGreaterThan(0);
  for (const n of cited) expect(result.context.some((c: any) => c.id === n)).toBe(true);
}

describe("langchain-critique: CritiqueSearchTool", () => {
  test('a plain question sends {"prompt", "source_blacklist": [], "output_format": {}} and gets a cited text answer', async () => {
    const result = await critiqueSearchTool({ prompt: "When was the Eiffel Tower completed?" });
    expect(sent.at(-1)!.body).toBe(
      JSON.stringify({ prompt: "When was the Eiffel Tower completed?", source_blacklist: [], output_format: {} }),
    );
    // output_format {} is "no format": a text answer, not an empty object.
    expectCitedText(result);
    expect(result.response).toContain("1889");
    expect(typeof result.info.token_usage).toBe("number");
  });

  test("the empty options change nothing: the same answer and sources as a bare prompt", async () => {
    const prompt = "What will the river bridge cost?";
    const bare = await (
      await s.app.fetch("/v1/search", { method: "POST", headers: toolHeaders(s.apiKey), body: JSON.stringify({ prompt }) })
    ).json();
    const viaTool = await critiqueSearchTool({ prompt, source_blacklist: null, output_format: null });
    expect(viaTool.response).toBe(bare.response);
    expect(viaTool.context.map((c: any) => c.metadata.url)).toEqual(bare.context.map((c: any) => c.metadata.url));
  });

  test("the tool's own example: a blacklist and output_format {key_points: [string]} give an object with a list of strings", async () => {
    const result = await critiqueSearchTool({
      prompt: "What will the river bridge cost?",
      source_blacklist: ["spam.test"],
      output_format: { key_points: ["string"] },
    });
    expect(typeof result.response).toBe("object");
    expect(Object.keys(result.response)).toEqual(["key_points"]);
    if (result.response.key_points !== null) {
      expect(Array.isArray(result.response.key_points)).toBe(true);
      for (const point of result.response.key_points) expect(typeof point).toBe("string");
    }
    for (const entry of result.context) expect(new URL(entry.metadata.url).hostname).not.toBe("spam.test");
  });

  test("the docstring's nested format {building_info: {name, location, year_built}} comes back in that shape", async () => {
    const result = await critiqueSearchTool({
      prompt: "Facts about the Eiffel Tower",
      output_format: { building_info: { name: "string", location: "string", year_built: "number" } },
    });
    expect(Object.keys(result.response)).toEqual(["building_info"]);
    expect(Object.keys(result.response.building_info).sort()).toEqual(["location", "name", "year_built"]);
    expect(result.response.building_info.year_built).toBe(1889);
  });

  test("an image URL is downloaded by the tool and re-sent as data:image/jpeg;base64 (a PNG labelled JPEG): accepted", async () => {
    const url = images.url("/tower.png");
    const result = await critiqueSearchTool({ prompt: "When was the Eiffel Tower completed?", image: url });
    const body = JSON.parse(sent.at(-1)!.body!);
    expect(body.image).toBe(`data:image/jpeg;base64,${Buffer.from(images.png).toString("base64")}`);
    expect(Object.keys(body)).toEqual(["prompt", "source_blacklist", "output_format", "image"]);
    expectCitedText(result);
    expect(result.info.image_analysed).toBe(false);
  });

  test("a data:image/png;base64 URL is passed through as is and accepted", async () => {
    const image = `data:image/png;base64,${Buffer.from(minimalPng()).toString("base64")}`;
    const result = await critiqueSearchTool({ prompt: "When was the Eiffel Tower completed?", image });
    expect(JSON.parse(sent.at(-1)!.body!).image).toBe(image);
    expectCitedText(result);
  });

  test("raw base64 never leaves the tool (its schema refuses it); a non-image URL neither", async () => {
    const before = sent.length;
    await expect(critiqueSearchTool({ prompt: "x", image: Buffer.from(minimalPng()).toString("base64") })).rejects.toThrow(
      "Image must be either a URL or base64 encoded string",
    );
    await expect(critiqueSearchTool({ prompt: "x", image: images.url("/page.html") })).rejects.toThrow("URL must point to an image file");
    expect(sent.length).toBe(before);
  });

  test("any status but 200 raises ValueError('Search failed: <body>'): a bad key, an empty prompt", async () => {
    const unauthorized = await critiqueSearchTool({ prompt: "When was the Eiffel Tower completed?" }, "sk_live_wrong").catch((e) => e);
    expect(unauthorized).toBeInstanceOf(ValueError);
    expect(unauthorized.message).toStartWith("Search failed: ");
    expect(JSON.parse(unauthorized.message.slice("Search failed: ".length)).error).toBe("unauthorized");
    const empty = await critiqueSearchTool({ prompt: "" }).catch((e) => e);
    expect(empty).toBeInstanceOf(ValueError);
    expect(JSON.parse(empty.message.slice("Search failed: ".length)).detail[0].loc).toEqual(["body", "prompt"]);
  });
});

describe("langchain-critique: CritiqueAPIDesignTool and CritiqueDynamicAPITool", () => {
  const ESG = "Create an API that takes a company name and returns their ESG score";
  const LANDMARK = "Given a landmark, find the year it was completed and its height in metres";

  test('create sends {"original_prompt", "id": null}: 200, the record under "response" with an integer id', async () => {
    const result = await critiqueApiDesignTool({ operation: "create", prompt: ESG });
    expect(sent.at(-1)).toEqual({ method: "POST", path: "/v1/design-api", body: JSON.stringify({ original_prompt: ESG, id: null }) });
    const record = result.response;
    expect(Number.isInteger(record.id)).toBe(true);
    expect(record.original_prompt).toBe(ESG);
    expect(typeof record.api_name).toBe("string");
    expect(typeof record.stub).toBe("string");
    expect(Array.isArray(record.inputs)).toBe(true);
    expect(record.integration.url).toContain(`/v1/user-defined-service/${record.stub}`);
  });

  test("the lifecycle of the tool's integration test: create, list holds the id, delete (api_id as a string), list no longer does", async () => {
    const created = (await critiqueApiDesignTool({ operation: "create", prompt: ESG })).response;
    const listed = await critiqueApiDesignTool({ operation: "list" });
    // The toolkit iterates the body itself.
    expect(Array.isArray(listed)).toBe(true);
    expect(listed.some((api: any) => api.id === created.id)).toBe(true);
    const deleted = await critiqueApiDesignTool({ operation: "delete", api_id: String(created.id) });
    expect(deleted).toBeDefined();
    const after = await critiqueApiDesignTool({ operation: "list" });
    expect(after.some((api: any) => api.id === created.id)).toBe(false);
  });

  test("update posts {id, prompt, schema_updates} without original_prompt: refused with 422 (original_prompt is required), the tool raises", async () => {
    const created = (await critiqueApiDesignTool({ operation: "create", prompt: ESG })).response;
    const failure = await critiqueApiDesignTool({
      operation: "update",
      api_id: String(created.id),
      prompt: "Add carbon footprint metrics to the response",
    }).catch((e) => e);
    expect(failure).toBeInstanceOf(ValueError);
    expect(failure.message).toStartWith("API design operation failed: ");
    const body = JSON.parse(failure.message.slice("API design operation failed: ".length));
    expect(body.detail).toEqual([{ loc: ["body", "original_prompt"], msg: "Field required", type: "missing" }]);
  });

  test("a designed endpoint runs through the dynamic tool at its stub, answering in the search shape", async () => {
    const record = (await critiqueApiDesignTool({ operation: "create", prompt: LANDMARK })).response;
    const required = record.inputs.filter((i: any) => i.required && i.default === null);
    expect(required.length).toBe(1);
    const result = await critiqueDynamicApiTool(record.stub, { [required[0].name]: "Eiffel Tower" });
    expect(typeof result.response).toBe("object");
    expect(Array.isArray(result.context)).toBe(true);
    expect(typeof result.info.token_usage).toBe("number");
    expect(Object.values(result.response)).toContain(1889);
  });

  // Not a target yet. The rules designer (no model configured) does not read the phrasing of the tool's own
  // examples, "Create an API that takes <input> and returns <fields>": it designs a generic endpoint (input
  // "query", output {summary, key_facts}, api_name "Create an API that takes a landmark name and returns the"),
  // and a run finds the Eiffel page yet answers {summary: null, key_facts: null}.
  test.todo("'Create an API that takes a landmark name and returns ...' designs a landmark input and those fields", async () => {
    const record = (
      await critiqueApiDesignTool({
        operation: "create",
        prompt: "Create an API that takes a landmark name and returns the year it was completed and its height in metres",
      })
    ).response;
    expect(record.inputs.map((i: any) => i.name)).toContain("landmark");
    const result = await critiqueDynamicApiTool(record.stub, { landmark: "Eiffel Tower" });
    expect(Object.values(result.response)).toContain(1889);
  });

  // Not a target yet. SPEC 4 says GET /v1/design-api answers "200 list of the caller's endpoints"; the service
  // wraps it as {"response": [...]}. CritiqueToolkit._get_dynamic_api_tools iterates the body as a list.
  test("list answers a bare JSON array the toolkit can iterate (SPEC 4: 200 list)", async () => {
    await critiqueApiDesignTool({ operation: "create", prompt: ESG });
    const listed = await critiqueApiDesignTool({ operation: "list" });
    expect(Array.isArray(listed)).toBe(true);
  });
});
