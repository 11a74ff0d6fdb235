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

describe("a sentence ends at final punctuation before the next sentence", () => {
  test("plain prose splits at periods, question and exclamation marks", () => {
    expect(splitSentences("The tower is tall. Is it old? It is! Visitors love it.")).toEqual([
      "The tower is tall.",
      "Is it old?",
      "It is!",
      "Visitors love it.",
    ]);
  });

  test("abbreviations, initials and acronyms do not end a sentence", () => {
    expect(
      splitSentences(
        "Dr. Smith met Prof. Jones in the U.S. Army museum, e.g. on Mondays. J. K. Rowling and Wile E. Coyote came too. It was approx. two hours.",
      ),
    ).toEqual([
      "Dr. Smith met Prof. Jones in the U.S. Army museum, e.g. on Mondays.",
      "J. K. Rowling and Wile E. Coyote came too.",
      "It was approx. two hours.",
    ]);
  });

  test("decimals, versions and addresses do not end a sentence", () => {
    expect(splitSentences("It grew 3.5 percent in version 4.0.1 of example.com last year. Then it stopped.")).toEqual([
      "It grew 3.5 percent in version 4.0.1 of example.com last year.",
      "Then it stopped.",
    ]);
  });

  test("German ordinal dates and abbreviations stay inside the sentence", () => {
    expect(splitSentences("Das Tor wurde am 6. August 1791 eröffnet, z.B. mit Musik. Es kostete 3,5 Mio. Taler.")).toEqual([
      "Das Tor wurde am 6. August 1791 eröffnet, z.B. mit Musik.",
      "Es kostete 3,5 Mio. Taler.",
    ]);
  });

  test("Chinese and Japanese full stops split without a following space", () => {
    expect(splitSentences("埃菲尔铁塔于1889年建成。它高330米！东京塔呢？")).toEqual([
      "埃菲尔铁塔于1889年建成。",
      "它高330米！",
      "东京塔呢？",
    ]);
  });

  test("closing quotes and brackets stay with their sentence", () => {
    expect(splitSentences('Artists called it "useless and monstrous." Parisians (mostly) agreed.')).toEqual([
      'Artists called it "useless and monstrous."',
      "Parisians (mostly) agreed.",
    ]);
  });

  test("lines are sentences (list items, table rows), but a hard-wrapped line continues", () => {
    expect(splitSentences("Our products:\nRocket skates: $49.99\nAnvil: $20")).toEqual([
      "Our products:",
      "Rocket skates: $49.99",
      "Anvil: $20",
    ]);
    expect(splitSentences("The tower was built by a team of three hundred workers over\ntwo years and two months.")).toEqual([
      "The tower was built by a team of three hundred workers over\ntwo years and two months.",
    ]);
  });
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
