import { expect, test } from "bun:test";
import { PageIndex, searchTerms } from "./page-index.ts";

const pages = [
  { title: "Minecraft server crash", text: "A bug crashed servers. Mojang was told about the bug in March. Players waited." },
  { title: "Gardening", text: "Tomatoes need sun. The server at the cafe brought tea." },
  { title: "Cooking", text: "Bread needs flour, water and salt." },
];

test("terms are lowercased words, plurals stemmed, function words dropped", () => {
  expect(searchTerms("When were the Servers told?")).toEqual(["server", "told"]);
});

test("pages rank by their words, a title word weighing more, with the best-matching sentence as snippet", () => {
  const index = new PageIndex(pages);
  const hits = index.search("When was Mojang told about the server bug?", 10);
  expect(hits.map((h) => h.page)).toEqual([0, 1]);
  expect(hits[0]!.snippet).toBe("Mojang was told about the bug in March.");
  expect(index.search("bread", 10, (page) => page !== 2)).toEqual([]);
});
