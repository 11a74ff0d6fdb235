/**
 * SPEC 2.1, the search request: POST /v1/search (JSON and server-sent
 * events) over real HTTP against the loopback search world. The WebSocket's
 * first message follows the same rules (section 6 tests it there).
 */
import { expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const png = () => Buffer.from(minimalPng()).toString("base64");
const hosts = (body: { context: { metadata: { url: string } }[] }) => body.context.map((c) => new URL(c.metadata.url).hostname);

async function expect422(body: unknown, loc: (string | number)[], type?: string) {
  const response = await s.search(body);
  expect(response.status).toBe(422);
  const detail = (await jsonOf(response)).detail as { loc: unknown[]; msg: string; type: string }[];
  const found = detail.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(found).toBeDefined();
  if (type) expect(found!.type).toBe(type);
  return detail;
}

/** A search answered 200, and the answer's kind and sources (what "behaves like the field left out" compares). */
async function outcome(body: unknown) {
  const response = await s.search(body);
  expect(response.status).toBe(200);
  const json = await jsonOf(response);
  return {
    kind: typeof json.response,
    hosts: hosts(json).sort(),
    imageAnalysed: json.info.image_analysed,
    imageNote: json.info.image_note,
  };
}

clause("2.1 · prompt", "a body of only a prompt string is a 200", async () => {
  const response = await s.search({ prompt: "When was the Eiffel Tower completed?" });
  expect(response.status).toBe(200);
  const body = await jsonOf(response);
  expect(typeof body.response).toBe("string");
  expect(body.response).toContain("1889");
});

clause("2.1 · prompt", "prompt is required: its absence is a 422 at body.prompt, type missing", async () => {
  const response = await s.search({ source_blacklist: ["spam.test"] });
  expect(response.status).toBe(422);
  expect(await jsonOf(response)).toEqual({ detail: [{ loc: ["body", "prompt"], msg: "Field required", type: "missing" }] });
});

clause("2.1 · prompt", "prompt must be a string: a number, a list or null is a 422 string_type", async () => {
  for (const prompt of [42, ["a"], null]) {
    const response = await s.search({ prompt });
    expect(response.status).toBe(422);
    expect(await jsonOf(response)).toEqual({
      detail: [{ loc: ["body", "prompt"], msg: "Input should be a valid string", type: "string_type" }],
    });
  }
});

clause("2.1 · prompt", "an empty or blank prompt is a 422 string_too_short (the service's choice)", async () => {
  for (const prompt of ["", "   "]) await expect422({ prompt }, ["body", "prompt"], "string_too_short");
});

clause("2.1 · image", "base64 image data is accepted raw and with a data-URL media-type prefix", async () => {
  for (const image of [png(), `data:image/png;base64,${png()}`]) {
    const response = await s.search({ prompt: "When was the Eiffel Tower completed?", image });
    expect(response.status).toBe(200);
    expect(typeof (await jsonOf(response)).response).toBe("string");
  }
});

clause("2.1 · image", "an image URL must begin with https:// (http:// is a 422 at body.image)", async () => {
  const detail = await expect422({ prompt: "What is this?", image: "http://images.test/photo.png" }, ["body", "image"], "image_url");
  expect(detail[0]!.msg).toContain("https://");
});

clause("2.1 · image", "an image URL must end in an image extension (.jpg .jpeg .png .gif .webp .bmp)", async () => {
  await expect422({ prompt: "What is this?", image: "https://images.test/photo" }, ["body", "image"], "image_url");
  await expect422({ prompt: "What is this?", image: "https://images.test/photo.html" }, ["body", "image"], "image_url");
  // An https URL with an image extension passes the rule and is fetched: here the address is refused by the SSRF guard.
  for (const ext of ["jpg", "jpeg", "png", "gif", "webp", "bmp"]) {
    const detail = await expect422({ prompt: "What is this?", image: `https://127.0.0.1/photo.${ext}` }, ["body", "image"]);
    expect(detail[0]!.msg).toContain("could not be fetched");
  }
});

clause("2.1 · image", "data that is neither image bytes nor an https URL is a 422 at body.image", async () => {
  await expect422({ prompt: "What is this?", image: "not an image, not base64 !!" }, ["body", "image"], "image_format");
  await expect422(
    { prompt: "What is this?", image: Buffer.from("plain text, no image").toString("base64") },
    ["body", "image"],
    "image_type",
  );
  await expect422({ prompt: "What is this?", image: 7 }, ["body", "image"], "string_type");
});

clause(
  "2.1 · image",
  "prompt and image are combined: one run answers the prompt, and info says whether the image was analysed",
  async () => {
    const body = await jsonOf(s.search({ prompt: "When was the Eiffel Tower completed?", image: png() }));
    expect(body.response).toContain("1889");
    // Without a vision model (this app has none) the image is accepted, not analysed, and info says why.
    expect(body.info.image_analysed).toBe(false);
    expect(typeof body.info.image_note).toBe("string");
  },
);

clause("2.1 · image", 'image "" and image null behave exactly like no image', async () => {
  const absent = await outcome({ prompt: "When was the Eiffel Tower completed?" });
  expect(absent.imageNote).toBeUndefined();
  expect(await outcome({ prompt: "When was the Eiffel Tower completed?", image: null })).toEqual(absent);
  expect(await outcome({ prompt: "When was the Eiffel Tower completed?", image: "" })).toEqual(absent);
});

clause("2.1 · source_blacklist", "a blacklisted domain never appears in context", async () => {
  const open = await outcome({ prompt: "What will the river bridge cost?" });
  expect(open.hosts).toContain("spam.test");
  const closed = await outcome({ prompt: "What will the river bridge cost?", source_blacklist: ["spam.test"] });
  expect(closed.hosts.length).toBeGreaterThan(0);
  expect(closed.hosts).not.toContain("spam.test");
});

clause("2.1 · source_blacklist", "a URL prefix is accepted as an entry and excludes what it covers", async () => {
  const closed = await outcome({ prompt: "What will the river bridge cost?", source_blacklist: [s.world.url("spam.test", "/bridge")] });
  expect(closed.hosts).not.toContain("spam.test");
});

clause("2.1 · source_blacklist", "it must be an array of strings (422 list_type / string_type)", async () => {
  await expect422({ prompt: "x", source_blacklist: "spam.test" }, ["body", "source_blacklist"], "list_type");
  await expect422({ prompt: "x", source_blacklist: ["spam.test", 5] }, ["body", "source_blacklist", 1], "string_type");
});

clause("2.1 · source_blacklist", "[] and null behave exactly like the field left out", async () => {
  const absent = await outcome({ prompt: "What will the river bridge cost?" });
  expect(await outcome({ prompt: "What will the river bridge cost?", source_blacklist: [] })).toEqual(absent);
  expect(await outcome({ prompt: "What will the river bridge cost?", source_blacklist: null })).toEqual(absent);
});

clause("2.1 · source_whitelist", "a whitelist is used exclusively: every context entry comes from it", async () => {
  const body = await outcome({ prompt: "What will the river bridge cost?", source_whitelist: ["blog.test"] });
  expect(body.hosts.length).toBeGreaterThan(0);
  expect(new Set(body.hosts)).toEqual(new Set(["blog.test"]));
  const prefix = s.world.url("news.test", "/bridge");
  const prefixed = await jsonOf(s.search({ prompt: "river bridge", source_whitelist: [prefix] }));
  expect(prefixed.context.length).toBeGreaterThan(0);
  for (const entry of prefixed.context) expect(entry.metadata.url.startsWith(prefix)).toBe(true);
});

clause("2.1 · source_whitelist", "an entry that is neither a domain nor a URL is a 422 at its index (the service's choice)", async () => {
  await expect422({ prompt: "x", source_whitelist: ["blog.test", "not a domain"] }, ["body", "source_whitelist", 1], "value_error");
});

clause("2.1 · source_whitelist", "[] and null behave exactly like the field left out", async () => {
  const absent = await outcome({ prompt: "What will the river bridge cost?" });
  expect(await outcome({ prompt: "What will the river bridge cost?", source_whitelist: [] })).toEqual(absent);
  expect(await outcome({ prompt: "What will the river bridge cost?", source_whitelist: null })).toEqual(absent);
});

clause("2.1 · output_format", "an object shapes the response: the answer is then an object, not text", async () => {
  const body = await jsonOf(s.search({ prompt: "Facts about the Eiffel Tower", output_format: { completed_year: "integer" } }));
  expect(body.response).toEqual({ completed_year: 1889 });
});

clause("2.1 · output_format", "output_format must be an object: a string or a list is a 422 at body.output_format", async () => {
  for (const output_format of ["string", ["string"], 5]) await expect422({ prompt: "x", output_format }, ["body", "output_format"]);
});

clause("2.1 · output_format", "{} and null behave exactly like the field left out (a text answer)", async () => {
  const absent = await outcome({ prompt: "When was the Eiffel Tower completed?" });
  expect(absent.kind).toBe("string");
  expect(await outcome({ prompt: "When was the Eiffel Tower completed?", output_format: null })).toEqual(absent);
  expect(await outcome({ prompt: "When was the Eiffel Tower completed?", output_format: {} })).toEqual(absent);
});

clause("2.1 · output_format", "empty options behave like absent ones on server-sent events too", async () => {
  const streamed = await s.events({
    prompt: "When was the Eiffel Tower completed?",
    output_format: {},
    source_blacklist: [],
    source_whitelist: [],
    image: "",
  });
  expect(streamed.status).toBe(200);
  expect(streamed.contentType).toContain("text/event-stream");
  const responses = streamed.events.filter((e) => e.event === "response");
  expect(responses.length).toBeGreaterThan(0);
  for (const e of responses) expect(typeof e.data.content).toBe("string");
});

clause("2.1 · ¶1", "a non-empty whitelist with a non-empty blacklist is a 422", async () => {
  const response = await s.search({ prompt: "river bridge", source_whitelist: ["blog.test"], source_blacklist: ["spam.test"] });
  expect(response.status).toBe(422);
  expect(await jsonOf(response)).toEqual({
    detail: [
      {
        loc: ["body", "source_whitelist"],
        msg: "source_whitelist and source_blacklist cannot both be given: send one of them",
        type: "value_error",
      },
    ],
  });
});

clause("2.1 · ¶1", "the same pair is a 422 JSON answer when server-sent events are asked for", async () => {
  const streamed = await s.events({ prompt: "river bridge", source_whitelist: ["blog.test"], source_blacklist: ["spam.test"] });
  expect(streamed.status).toBe(422);
  expect(streamed.contentType).toContain("application/json");
});

clause("2.1 · ¶1", "a non-empty whitelist with an empty blacklist (or the reverse) is accepted", async () => {
  const white = await outcome({ prompt: "What will the river bridge cost?", source_whitelist: ["blog.test"], source_blacklist: [] });
  expect(new Set(white.hosts)).toEqual(new Set(["blog.test"]));
  const black = await outcome({ prompt: "What will the river bridge cost?", source_whitelist: [], source_blacklist: ["spam.test"] });
  expect(black.hosts).not.toContain("spam.test");
});

clause("2.1 · prompt", "unknown top-level fields are ignored: a valid body with one succeeds", async () => {
  const response = await s.search({ prompt: "When was the Eiffel Tower completed?", model: "gpt-4", search_depth: "deep" });
  expect(response.status).toBe(200);
  expect((await jsonOf(response)).response).toContain("1889");
});

clause("2.1 · prompt", "unknown top-level fields are never reported in a 422", async () => {
  const response = await s.search({ extra: 1, another: "x" });
  expect(response.status).toBe(422);
  expect(await jsonOf(response)).toEqual({ detail: [{ loc: ["body", "prompt"], msg: "Field required", type: "missing" }] });
});
