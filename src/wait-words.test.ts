import { expect, test } from "bun:test";
import { waitWords } from "./wait-words.ts";

test("a wait reads naturally for every length", () => {
  expect(waitWords(0)).toBe("1 second");
  expect(waitWords(1)).toBe("1 second");
  expect(waitWords(2)).toBe("2 seconds");
  expect(waitWords(40)).toBe("40 seconds");
  expect(waitWords(59)).toBe("59 seconds");
  expect(waitWords(60)).toBe("a minute");
  expect(waitWords(89)).toBe("a minute");
  expect(waitWords(90)).toBe("2 minutes");
  expect(waitWords(600)).toBe("10 minutes");
});
