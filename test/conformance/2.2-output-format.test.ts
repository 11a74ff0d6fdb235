/**
 * SPEC 2.2, output_format: the caller's shape of the answer, over HTTP and
 * the WebSocket. The search world here knows two pages, a company profile
 * (a year, a yes/no, an enumeration of products) and the Eiffel Tower.
 */
import { beforeAll, expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { article } from "../helpers/peers/pages.ts";
import type { PeerAsk } from "../helpers/peers/provider-peer.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();

beforeAll(() => {
  s.world.site.put(
    "/acme.html",
    article(
      "Acme Corporation",
      [
        "Acme Corporation was founded in 1949 in Phoenix.",
        "Its products include rocket skates, anvils and giant magnets, which ship worldwide.",
        "Acme is not publicly traded.",
      ],
      { site: "news.test" },
    ),
  );
  const acme = {
    title: "Acme Corporation",
    url: s.world.url("news.test", "/acme.html"),
    snippet: "Acme Corporation was founded in 1949 in Phoenix.",
  };
  const eiffel = {
    title: "Eiffel Tower",
    url: s.world.url("wiki.test", "/eiffel.html"),
    snippet: "The Eiffel Tower is a wrought-iron lattice tower in Paris.",
  };
  const answers = (ask: PeerAsk) => (ask.query.toLowerCase().includes("acme") ? [acme] : [eiffel]);
  s.world.searxng.setAnswers(answers);
  s.world.brave.setAnswers(answers);
});

async function shaped(prompt: string, output_format: unknown): Promise<Record<string, any>> {
  const response = await s.search({ prompt, output_format });
  expect(response.status).toBe(200);
  const body = await jsonOf(response);
  expect(typeof body.response).toBe("object");
  expect(Array.isArray(body.response)).toBe(false);
  return body.response;
}

async function refused(output_format: unknown, loc: (string | number)[]) {
  const response = await s.search({ prompt: "Acme Corporation", output_format });
  expect(response.status).toBe(422);
  const detail = (await jsonOf(response)).detail as { loc: unknown[]; msg: string; type: string }[];
  expect(detail).toContainEqual({ loc, msg: expect.any(String), type: "value_error" });
}

clause("2.2 · ¶1", "the answer's keys are exactly output_format's keys, in its notation", async () => {
  const format = { founded: "integer", products: "array", publicly_traded: "boolean", headquarters_city: "string" };
  const response = await shaped("Acme Corporation profile", format);
  expect(Object.keys(response).sort()).toEqual(Object.keys(format).sort());
});

clause("2.2 · ¶1", "a field the sources do not answer is present as null, never left out (the service's choice)", async () => {
  const response = await shaped("Acme Corporation profile", { founded: "integer", ceo_name: "string", share_price: "number" });
  expect(response.founded).toBe(1949);
  expect(response).toHaveProperty("ceo_name");
  expect(response).toHaveProperty("share_price");
  expect(response.share_price).toBeNull();
});

clause("2.2 · •1", '"string", "number" and "boolean" give values of those JSON types', async () => {
  const response = await shaped("Eiffel Tower facts", { designer: "string", height_metres: "number", in_paris: "boolean" });
  expect(typeof response.designer).toBe("string");
  expect(response.designer).toContain("Eiffel");
  expect(response.height_metres).toBe(330);
  expect(typeof response.in_paris === "boolean" || response.in_paris === null).toBe(true);
  const acme = await shaped("Is Acme Corporation publicly traded?", { publicly_traded: "boolean" });
  expect(acme.publicly_traded).toBe(false);
});

clause("2.2 · •1", '"integer" gives a whole number and "array" a list of strings', async () => {
  const response = await shaped("Acme Corporation profile", { founded: "integer", products: "array" });
  expect(Number.isInteger(response.founded)).toBe(true);
  expect(response.founded).toBe(1949);
  expect(response.products).toEqual(["rocket skates", "anvils", "giant magnets"]);
});

clause("2.2 · •1", '"integer" and "array" are accepted on the WebSocket too: one response message holds the object', async () => {
  const run = await s.socket({ prompt: "Acme Corporation profile", output_format: { founded: "integer", products: "array" } });
  expect(run.closeCode).toBe(1000);
  const responses = run.messages.filter((m) => m.type === "response");
  expect(responses).toEqual([{ type: "response", content: { founded: 1949, products: ["rocket skates", "anvils", "giant magnets"] } }]);
});

clause("2.2 · •1", "a type name outside string, number, integer, boolean, array is a 422 at its path", async () => {
  const response = await s.search({ prompt: "Acme Corporation", output_format: { founded: "date" } });
  expect(response.status).toBe(422);
  expect(await jsonOf(response)).toEqual({
    detail: [
      {
        loc: ["body", "output_format", "founded"],
        msg: 'unknown type name "date": use one of string, number, integer, boolean, array, an object, or a one-item array',
        type: "value_error",
      },
    ],
  });
  await refused({ a: "String" }, ["body", "output_format", "a"]);
  await refused({ a: 5 }, ["body", "output_format", "a"]);
  await refused({ a: null }, ["body", "output_format", "a"]);
});

clause("2.2 · •2", "a nested object gives a nested object of its fields", async () => {
  const response = await shaped("Eiffel Tower facts", { tower: { completed_year: "integer", designer: "string" } });
  expect(Object.keys(response)).toEqual(["tower"]);
  expect(Object.keys(response.tower).sort()).toEqual(["completed_year", "designer"]);
  expect(response.tower.completed_year).toBe(1889);
  expect(typeof response.tower.designer).toBe("string");
});

clause("2.2 · •2", "nesting is accepted to 8 levels; deeper is a 422 (the service's limit)", async () => {
  const deep = (levels: number): unknown => (levels === 0 ? "string" : { x: deep(levels - 1) });
  expect((await s.search({ prompt: "Acme Corporation", output_format: deep(8) })).status).toBe(200);
  const response = await s.search({ prompt: "Acme Corporation", output_format: deep(9) });
  expect(response.status).toBe(422);
  expect((await jsonOf(response)).detail[0].msg).toContain("deeper than 8");
});

clause("2.2 · •2", "an empty nested object is a 422 at its path", async () => {
  await refused({ company: {} }, ["body", "output_format", "company"]);
});

clause("2.2 · •3", "an array holding one object gives a list of objects of exactly that shape", async () => {
  const response = await shaped("What products does Acme Corporation make?", { products: [{ name: "string" }] });
  expect(response.products).toEqual([{ name: "rocket skates" }, { name: "anvils" }, { name: "giant magnets" }]);
});

clause("2.2 · •3", "an array holding one type name is accepted too (a list of that type)", async () => {
  const response = await shaped("What products does Acme Corporation make?", { products: ["string"] });
  expect(response.products).toEqual(["rocket skates", "anvils", "giant magnets"]);
});

clause("2.2 · •3", "an array with no item shape or with two is a 422 at its path", async () => {
  await refused({ products: [] }, ["body", "output_format", "products"]);
  await refused({ products: [{ name: "string" }, { price: "number" }] }, ["body", "output_format", "products"]);
});
