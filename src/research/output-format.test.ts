import { describe, expect, test } from "bun:test";
import { checkOutputFormat, conforms, toJsonSchema, type OutputShape } from "./output-format.ts";

const loc = ["body", "output_format"];

describe("output_format rules", () => {
  test("type names, nested objects and one-item arrays are accepted", () => {
    expect(
      checkOutputFormat(
        {
          name: "string",
          age: "integer",
          score: "number",
          ok: "boolean",
          tags: "array",
          ceo: { name: "string" },
          products: [{ name: "string", price: "number" }],
          years: ["integer"],
        },
        loc,
      ),
    ).toEqual([]);
  });

  test("each rule is a 422 naming the path", () => {
    expect(checkOutputFormat({ a: "text" }, loc)[0]).toMatchObject({ loc: [...loc, "a"], type: "value_error" });
    expect(checkOutputFormat({ a: { b: {} } }, loc)[0]).toMatchObject({
      loc: [...loc, "a", "b"],
      msg: "an object must have at least one field",
    });
    expect(checkOutputFormat({}, loc)[0]).toMatchObject({ loc });
    expect(checkOutputFormat({ a: ["string", "number"] }, loc)[0]).toMatchObject({
      loc: [...loc, "a"],
      msg: "an array must hold exactly one item shape (found 2)",
    });
    expect(checkOutputFormat({ a: [] }, loc)[0]?.loc).toEqual([...loc, "a"]);
    expect(checkOutputFormat({ a: 5 }, loc)[0]?.loc).toEqual([...loc, "a"]);
    expect(checkOutputFormat({ a: null }, loc)[0]?.loc).toEqual([...loc, "a"]);
    expect(checkOutputFormat("string", loc)[0]?.loc).toEqual(loc);
    expect(checkOutputFormat(["string"], loc)[0]?.loc).toEqual(loc);
  });

  test("depth over 8 and more than 200 fields are refused", () => {
    let deep: OutputShape = "string";
    for (let i = 0; i < 8; i++) deep = { x: deep };
    expect(checkOutputFormat(deep, loc)).toEqual([]);
    const deeper = { x: deep };
    expect(checkOutputFormat(deeper, loc)[0]?.msg).toContain("deeper than 8");
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, "string"]));
    expect(checkOutputFormat(wide, loc)).toEqual([]);
    expect(checkOutputFormat({ ...wide, one_more: "string" }, loc)[0]?.msg).toContain("more than 200 fields");
  });
});

describe("the JSON Schema", () => {
  const schema = toJsonSchema({
    name: "string",
    founded: "integer",
    public: "boolean",
    tags: "array",
    products: [{ name: "string", price: "number" }],
  });
  test("every field required, nullable, nothing extra", () => {
    expect(schema).toMatchObject({
      type: "object",
      required: ["name", "founded", "public", "tags", "products"],
      additionalProperties: false,
    });
  });
  test("answers are checked against it", () => {
    expect(conforms(schema, { name: "Acme", founded: 1999, public: true, tags: ["a"], products: [{ name: "x", price: 9.5 }] })).toBe(true);
    expect(conforms(schema, { name: null, founded: null, public: null, tags: null, products: null })).toBe(true);
    expect(conforms(schema, { name: "Acme", founded: 1999.5, public: true, tags: [], products: [] })).toBe(false);
    expect(conforms(schema, { name: "Acme", founded: 1999, public: true, tags: [], products: [], extra: 1 })).toBe(false);
    expect(conforms(schema, { name: "Acme" })).toBe(false);
    expect(conforms(schema, { name: "Acme", founded: 1, public: "yes", tags: [], products: [] })).toBe(false);
  });
});
