import { describe, expect, test } from "bun:test";
import {
  acme,
  brandenburgerTor,
  eiffel,
  greatWall,
  photosynthesis,
  planets,
  tourEiffel,
} from "../../../test/helpers/fixtures/extractive.ts";
import { splitSentences } from "./sentences.ts";

/** A passage and the sentences it splits into, each rule by example. */
const SPLITS: [rule: string, passage: string, sentences: string[]][] = [
  [
    "plain prose splits at periods, question and exclamation marks",
    "The tower is tall. Is it old? It is! Visitors love it.",
    ["The tower is tall.", "Is it old?", "It is!", "Visitors love it."],
  ],
  [
    "abbreviations, initials and acronyms do not end a sentence",
    "Dr. Smith met Prof. Jones in the U.S. Army museum, e.g. on Mondays. J. K. Rowling and Wile E. Coyote came too. It was approx. two hours.",
    [
      "Dr. Smith met Prof. Jones in the U.S. Army museum, e.g. on Mondays.",
      "J. K. Rowling and Wile E. Coyote came too.",
      "It was approx. two hours.",
    ],
  ],
  [
    "decimals, versions and addresses do not end a sentence",
    "It grew 3.5 percent in version 4.0.1 of example.com last year. Then it stopped.",
    ["It grew 3.5 percent in version 4.0.1 of example.com last year.", "Then it stopped."],
  ],
  [
    "German ordinal dates and abbreviations stay inside the sentence",
    "Das Tor wurde am 6. August 1791 eröffnet, z.B. mit Musik. Es kostete 3,5 Mio. Taler.",
    ["Das Tor wurde am 6. August 1791 eröffnet, z.B. mit Musik.", "Es kostete 3,5 Mio. Taler."],
  ],
  [
    "Chinese and Japanese full stops split without a following space",
    "埃菲尔铁塔于1889年建成。它高330米！东京塔呢？",
    ["埃菲尔铁塔于1889年建成。", "它高330米！", "东京塔呢？"],
  ],
  [
    "closing quotes and brackets stay with their sentence",
    'Artists called it "useless and monstrous." Parisians (mostly) agreed.',
    ['Artists called it "useless and monstrous."', "Parisians (mostly) agreed."],
  ],
  [
    "lines are sentences (list items, table rows)",
    "Our products:\nRocket skates: $49.99\nAnvil: $20",
    ["Our products:", "Rocket skates: $49.99", "Anvil: $20"],
  ],
  [
    "a hard-wrapped line continues its sentence",
    "The tower was built by a team of three hundred workers over\ntwo years and two months.",
    ["The tower was built by a team of three hundred workers over\ntwo years and two months."],
  ],
];

describe("a sentence ends at final punctuation before the next sentence", () => {
  for (const [rule, passage, sentences] of SPLITS) test(rule, () => expect(splitSentences(passage)).toEqual(sentences));
});

describe("markup noise is a boundary, never part of a sentence", () => {
  test("edit links, footnotes, table pipes and read-more links split and vanish", () => {
    const passage =
      "It is a global icon of France.[3]\nHistory [edit]\nIt opened in 1889.[12] Read more » | Opening hours | 9:30 to 23:45 |";
    expect(splitSentences(passage)).toEqual([
      "It is a global icon of France.",
      "History",
      "It opened in 1889.",
      "Opening hours",
      "9:30 to 23:45",
    ]);
  });

  test("every sentence of every fixture passage is an exact substring of it", () => {
    for (const source of [...eiffel, ...acme, ...photosynthesis, ...greatWall, ...planets, ...brandenburgerTor, ...tourEiffel]) {
      for (const passage of source.passages) {
        const sentences = splitSentences(passage.text);
        expect(sentences.length).toBeGreaterThan(0);
        for (const sentence of sentences) expect(passage.text).toContain(sentence);
      }
    }
  });
});
