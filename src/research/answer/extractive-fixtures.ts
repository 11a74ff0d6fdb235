/**
 * Hand-built evidence for the extractive answerers' tests: three to five
 * sources per topic, each with multi-sentence passages, distractors (a
 * namesake, a neighbouring fact) and near-duplicates across sources, as the
 * ranker would hand them over. Also the grounding assertion every text test uses.
 */
import { expect } from "bun:test";
import type { EvidenceSource } from "../types.ts";

export function source(id: number, title: string, passages: (string | { heading: string; text: string })[]): EvidenceSource {
  return {
    id,
    title,
    url: `https://example.org/${id}/${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`,
    passages: passages.map((p, i) => {
      const text = typeof p === "string" ? p : p.text;
      return { sourceId: id, text, heading: typeof p === "string" ? null : p.heading, score: 1 - i * 0.1 - id * 0.05, tokens: text.split(/\s+/).length };
    }),
  };
}

/**
 * Every [n] in the text names an existing source, and the sentence it follows
 * is, word for word, in one of that source's passages; the citations map
 * holds exactly what the text cites; and a text that cites nothing (the
 * no-answer sentence) has no citations at all.
 */
export function expectGroundedCitations(answer: { text: string; citations: Map<number, string[]> }, sources: EvidenceSource[]): void {
  const cited = new Set<number>();
  let rest = answer.text;
  for (const m of answer.text.matchAll(/([^[\]]+?)\s*((?:\[\d+\])+)/g)) {
    const sentence = m[1]!.trim();
    for (const id of [...m[2]!.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]))) {
      const source = sources.find((s) => s.id === id);
      expect(source, `[${id}] names no source`).toBeDefined();
      expect(source!.passages.some((p) => p.text.includes(sentence)), `[${id}] does not contain "${sentence}"`).toBe(true);
      expect(answer.citations.get(id) ?? []).toContain(sentence);
      cited.add(id);
    }
    rest = rest.replace(m[0], "");
  }
  if (cited.size > 0) expect(rest.trim(), "text outside a cited sentence").toBe("");
  expect([...answer.citations.keys()].sort()).toEqual([...cited].sort());
  for (const [id, sentences] of answer.citations) {
    const source = sources.find((s) => s.id === id)!;
    for (const sentence of sentences) expect(source.passages.some((p) => p.text.includes(sentence))).toBe(true);
  }
}

export const eiffel: EvidenceSource[] = [
  source(1, "Eiffel Tower - Wikipedia", [
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889. Locally nicknamed \"La dame de fer\" (French for \"Iron Lady\"), it was constructed as the centrepiece of the 1889 World's Fair. Although initially criticised by some of France's leading artists and intellectuals for its design, it has since become a global cultural icon of France.[3]\nHistory [edit]",
    "The tower was completed on 31 March 1889, after two years, two months and five days of construction. The design of the tower is attributed to Maurice Koechlin and Émile Nouguier, two senior engineers working for the Compagnie des Établissements Eiffel. The architect Stephen Sauvestre was brought in to work on the appearance of the design. Around 300 workers joined together 18,038 pieces of puddled iron using 2.5 million rivets.",
  ]),
  source(2, "Eiffel Tower facts | Paris Tourist Office", [
    "The tower is 330 metres (1,083 ft) tall, about the same height as an 81-storey building, and was the tallest man-made structure in the world until the Chrysler Building in New York City was finished in 1930. Its base is square, measuring 125 metres (410 ft) on each side. Read more »",
    "The tower receives around 6 million visitors a year, making it the most visited monument with an entrance fee in the world. Tickets for the summit cost €29.40 for adults. The tower has three levels for visitors, with restaurants on the first and second levels. | Opening hours | 9:30 to 23:45 |",
  ]),
  source(3, "Tokyo Tower - Japan Guide", [
    "Tokyo Tower was completed in 1958 and is 333 metres tall. Inspired by the Eiffel Tower, it is painted white and international orange to comply with air safety regulations. About 150 million people have visited it since it opened.",
  ]),
  source(4, "Building the Iron Lady | History Magazine", [
    "Work on the foundations started on 28 January 1887. The Eiffel Tower was completed in March 1889, just in time for the opening of the Exposition Universelle on 6 May 1889. Gustave Eiffel himself climbed to the top to plant the French flag on the day the work was finished.",
    "The tower was completed on 31 March 1889, after two years, two months and five days of construction. Many Parisians at first thought it ugly, and a petition of 300 artists called it a \"useless and monstrous\" tower. Due to the addition of a broadcasting aerial in 1957, it is now taller than the Chrysler Building by 5.2 metres.",
  ]),
];

export const acme: EvidenceSource[] = [
  source(1, "Acme Corporation – Company profile", [
    "Acme Corporation (commonly Acme Corp.) is an American manufacturer of outdoor and novelty equipment. The company was founded in 1948 by Margaret Hale in Springfield, Oregon, where it is still headquartered. Acme employs about 12,400 people in 14 countries. Its products include rocket skates, anvils and giant magnets, which are sold through catalogues and online.",
    "Acme has been publicly traded on the New York Stock Exchange since 1972 under the ticker ACME. In 2023 the company reported revenue of $3.2 billion, up 12% from the previous year. The current chief executive, Daniel Okafor, took over in 2019.",
  ]),
  source(2, "Acme Corp: the catalogue company that never died | Oregon Business", [
    "Margaret Hale started Acme in a garage in Springfield in 1948 with a loan of $2,000 from her brother. Hale, a former aircraft mechanic, wanted to sell affordable tools by mail. Today Acme is headquartered in Springfield, Oregon, United States, and its catalogue reaches customers in more than 40 countries.",
    "The best-known items remain the rocket skates, which cost $49.99, and the classic anvil, priced at $20. The giant magnets sell for $15 each. Acme also sells portable holes and earthquake pills through its website.",
  ]),
  source(3, "Acme Markets - Wikipedia", [
    "Acme Markets is an American supermarket chain founded in 1891 by Samuel Robinson and Robert Crawford in Philadelphia. It is not related to Acme Corporation. The chain operates 161 stores in six states and employs around 15,000 people.",
  ]),
  source(4, "Acme catalogue 2024", [
    { heading: "Products and prices", text: "Our best sellers this season:\nRocket skates: $49.99\nAnvil (50 lb): $20\nGiant magnet: $15\nPortable hole: $9.50\nAll prices include shipping within the United States." },
  ]),
];

export const photosynthesis: EvidenceSource[] = [
  source(1, "Photosynthesis - Encyclopaedia", [
    "Photosynthesis is the process by which green plants, algae and some bacteria convert light energy into chemical energy stored in glucose. It takes place mainly in the chloroplasts of leaf cells. Oxygen is released as a by-product.",
  ]),
  source(2, "How plants make food | Science for Kids", [
    "Plants need water, carbon dioxide and sunlight to grow. During photosynthesis, plants use the energy of sunlight to turn water and carbon dioxide into sugar and oxygen. The green pigment chlorophyll absorbs mostly blue and red light, which is why leaves look green.",
  ]),
  source(3, "Cellular respiration explained", [
    "Cellular respiration is the process by which cells break down glucose to release energy. It happens in the mitochondria and produces carbon dioxide and water. Respiration and photosynthesis are often described as opposite processes.",
  ]),
];

export const greatWall: EvidenceSource[] = [
  source(1, "Can you see the Great Wall of China from space? | NASA", [
    "Despite the popular myth, the Great Wall of China is not visible to the naked eye from low Earth orbit. Astronauts, including China's first astronaut Yang Liwei, have reported that they could not see it. The wall is long but very narrow, and its colour is similar to the surrounding soil.",
  ]),
  source(2, "Great Wall of China - Travel guide", [
    "The Great Wall of China stretches for more than 21,000 kilometres across northern China. Most of the existing wall was built during the Ming dynasty (1368–1644). It is a UNESCO World Heritage Site and one of the most visited attractions in the country.",
  ]),
  source(3, "Myths about space | Science Blog", [
    "The claim that the Great Wall is the only man-made structure visible from space is false. Cities at night and large airports are far easier to spot from orbit than the wall. The myth appeared in print decades before anyone had been to space.",
  ]),
];

export const planets: EvidenceSource[] = [
  source(1, "Solar System - Overview", [
    "The Solar System has eight planets. The four inner planets, Mercury, Venus, Earth and Mars, are rocky terrestrial planets. Jupiter and Saturn are gas giants, composed mainly of hydrogen and helium, while Uranus and Neptune are ice giants.",
  ]),
  source(2, "Gas giant - Astronomy wiki", [
    "A gas giant is a giant planet composed mainly of hydrogen and helium. In the Solar System, the gas giants are Jupiter and Saturn. Uranus and Neptune were once counted as gas giants but are now usually classified as ice giants.",
  ]),
  source(3, "Exoplanet discoveries 2023", [
    "Astronomers announced 300 new exoplanets in 2023, several of them hot Jupiters that orbit close to their stars. Hot Jupiters are gas giants with orbital periods of less than ten days.",
  ]),
];

export const brandenburgerTor: EvidenceSource[] = [
  source(1, "Brandenburger Tor – Wikipedia", [
    "Das Brandenburger Tor in Berlin ist ein frühklassizistisches Triumphtor, das an der Westseite des Pariser Platzes im Ortsteil Mitte steht. Es wurde in den Jahren 1789 bis 1793 auf Anweisung des preußischen Königs Friedrich Wilhelm II. errichtet. Der Entwurf stammt von Carl Gotthard Langhans.",
  ]),
  source(2, "Berlin Sehenswürdigkeiten: Brandenburger Tor", [
    "Das Tor wurde 1791 fertiggestellt, die Quadriga von Johann Gottfried Schadow kam erst 1793 hinzu. Das Brandenburger Tor ist 26 Meter hoch und 65,5 Meter breit. Heute ist es das bekannteste Wahrzeichen Berlins und ein Symbol der deutschen Einheit.",
  ]),
  source(3, "Siegestor München", [
    "Das Siegestor in München wurde 1852 fertiggestellt. Es ist 21 Meter hoch und wurde nach dem Vorbild des Konstantinsbogens in Rom errichtet.",
  ]),
];

export const tourEiffel: EvidenceSource[] = [
  source(1, "Tour Eiffel — Wikipédia", [
    "La tour Eiffel est une tour de fer puddlé de 330 mètres de hauteur située à Paris. Construite en deux ans par Gustave Eiffel et ses collaborateurs pour l'Exposition universelle de 1889, elle est achevée le 31 mars 1889. Elle est devenue le symbole de la capitale française.",
  ]),
  source(2, "Visiter la tour Eiffel | Paris je t'aime", [
    "La tour Eiffel accueille environ 6 millions de visiteurs par an. Le monument possède trois étages ouverts au public. Les billets pour le sommet coûtent 29,40 euros pour un adulte.",
  ]),
  source(3, "Le viaduc de Garabit", [
    "Le viaduc de Garabit, également conçu par Gustave Eiffel, fut achevé en 1884. Il franchit la Truyère à 122 mètres de hauteur.",
  ]),
];
