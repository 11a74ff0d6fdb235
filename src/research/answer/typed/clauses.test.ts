import { expect, test } from "bun:test";
import { clauseTerms, relatedWord } from "./clauses.ts";
import { fieldQuery } from "./fields.ts";

const prompt =
  "Daring Fireball colophon (John Gruber's site): which company hosts it, what publishing software does it run on, what tool tracks its stats, and in what year was it founded?";
const subject = ["daring", "fireball", "john", "gruber"];

test("each field gets the other words of the clause that asks for it", () => {
  expect(clauseTerms(prompt, fieldQuery(["hosting_provider"]), subject)).toEqual(["company"]);
  expect(clauseTerms(prompt, fieldQuery(["stats_tool"]), subject)).toEqual(["tracks"]);
  expect(clauseTerms(prompt, fieldQuery(["founded_year"]), subject)).toEqual([]);
});

test("no clause for a prompt that asks one thing, or a field it never names", () => {
  expect(clauseTerms("Acme Corp company profile", fieldQuery(["founded"]), ["acme"])).toEqual([]);
  expect(clauseTerms(prompt, fieldQuery(["employees"]), subject)).toEqual([]);
});

test("related words share a stem or a lemma, not merely a first letter", () => {
  expect(relatedWord("hosting", "hosts")).toBe(true);
  expect(relatedWord("publisher", "published")).toBe(true);
  expect(relatedWord("wrote", "written")).toBe(true);
  expect(relatedWord("host", "hostile")).toBe(true); // a stem this short is loose: the field's own words keep it honest
  expect(relatedWord("company", "country")).toBe(false);
  expect(relatedWord("tool", "took")).toBe(false);
});

test("on a tie, the clause that asks beats the one that names the topic", () => {
  const pledge =
    "Microsoft's carbon removal pledge: how many dollars will it invest, by what year does Microsoft aim to remove more carbon than it emits?";
  expect(clauseTerms(pledge, fieldQuery(["carbon_negative_by"]), ["microsoft"])).toContain("year");
});
