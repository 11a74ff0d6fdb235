import { describe, expect, test } from "bun:test";
import { addressKey, promptTemplate, workText } from "./fingerprint.ts";

describe("the work fingerprint's text", () => {
  test("a template filled with different tickers, names, numbers or quotes is one piece of work", () => {
    const same = [
      "What is the price of AAPL?",
      "what is the   price of MSFT",
      "What is the price of Tesla's",
      "What is the price of Berkshire Hathaway?!",
    ];
    expect(new Set(same.map(promptTemplate))).toEqual(new Set(["what is the price of {name}"]));
    expect(promptTemplate('Summarise "the river bridge" in 3 lines')).toBe(promptTemplate("Summarise 'a tunnel plan' in 12 lines"));
    expect(promptTemplate("Revenue of ACME in Q4 2023")).toBe("revenue of {name} in {number}");
  });

  test("different questions stay different work, and the word that starts a sentence is kept", () => {
    const office = [
      "What is the price of AAPL?",
      "Who designed the Eiffel Tower?",
      "How long is the river bridge?",
      "When does the council meet?",
    ];
    expect(new Set(office.map(promptTemplate)).size).toBe(4);
    expect(promptTemplate("Who is the CEO of Apple")).not.toBe(promptTemplate("What is the CEO of Apple"));
  });

  test("the output_format's fields are part of the work, in any order; an endpoint's work is its stub", () => {
    const search = (fields: string[]) => workText({ prompt: "price of AAPL", fields });
    expect(search(["price", "currency"])).toBe(search(["currency", "price"]));
    expect(search(["price"])).not.toBe(search([]));
    expect(workText({ endpoint: "published:stock-price" })).toBe("endpoint\npublished:stock-price");
    expect(workText({ endpoint: "user:price" })).not.toBe(workText({ prompt: "user:price", fields: [] }));
  });
});

describe("the address a call is counted under", () => {
  test("IPv4 as it is; IPv6 as its /64, however it is written", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:0:0:99")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("2001:db8:1:3::1")).not.toBe(addressKey("2001:db8:1:2::1"));
  });
});
