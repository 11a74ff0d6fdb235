import { describe, expect, test } from "bun:test";
import { toJsonSchema, type OutputShape } from "../../output-format.ts";
import type { EvidenceSource } from "../../types.ts";
import { acme, brandenburgerTor, eiffel, fillChecked, planets, source, tourEiffel } from "../../../../test/helpers/fixtures/extractive.ts";
import { fillOutputFormat } from "./index.ts";

const fill = fillChecked;

const citedText = (citations: Map<number, string[]>) => [...citations.values()].flat().join("\n");

const nimbus = [
  source(1, "Nimbus DB documentation – FAQ", [
    "Nimbus DB is not open source; its code is available under a proprietary licence. Since version 4.0, Nimbus no longer supports Windows; it runs on Linux and macOS. The Community Edition is free to use for up to three nodes.",
  ]),
  source(2, "Nimbus DB vs Cirrus – a comparison", [
    "Unlike Nimbus DB, its rival Cirrus is fully open source and supports Windows. Nimbus DB was first released in 2016 by Helix Data Systems.",
  ]),
];

const leadership = [
  source(1, "Acme Corporation – Investor relations", [
    {
      heading: "Leadership team",
      text: "Daniel Okafor – Chief executive officer\nPriya Nair – Chief financial officer\nTomás Alvarez – Head of engineering",
    },
    "Acme's board meets four times a year in Springfield. The leadership team reports to the board.",
  ]),
];

describe("scalars are read by type from the sentences that name the field", () => {
  test("a company profile: founding year, founder, listed or not, products from every source", () => {
    const { value, citations } = fill("Acme Corp company profile", acme, {
      founded: "integer",
      founder: "string",
      public: "boolean",
      products: ["string"],
    });
    expect(value).toEqual({
      founded: 1948,
      founder: "Margaret Hale",
      public: true,
      products: ["rocket skates", "anvils", "giant magnets", "portable holes", "earthquake pills"],
    });
    expect(citedText(citations)).toContain("founded in 1948 by Margaret Hale");
    expect(citedText(citations)).toContain("publicly traded");
    expect(citedText(citations)).not.toContain("Samuel Robinson"); // the namesake Acme Markets
  });

  test("money with a scale word, a percentage, and the nearest measure in the field's unit", () => {
    expect(fill("Acme Corp finances", acme, { revenue: "number", revenue_growth_percent: "number" }).value).toEqual({
      revenue: 3_200_000_000,
      revenue_growth_percent: 12,
    });
    const tower = fill("Eiffel Tower facts", eiffel, {
      height_m: "number",
      completed: "integer",
      architect: "string",
      visitors_per_year: "integer",
      summit_ticket_price: "number",
    });
    expect(tower.value).toEqual({
      height_m: 330,
      completed: 1889,
      architect: "Stephen Sauvestre",
      visitors_per_year: 6_000_000,
      summit_ticket_price: 29.4,
    });
  });

  test("yes/no fields follow negation, and a rival's sentence does not answer for the subject", () => {
    const { value } = fill("Nimbus DB", nimbus, {
      open_source: "boolean",
      supports_windows: "boolean",
      supports_linux: "boolean",
      free_tier: "boolean",
      release_year: "integer",
    });
    expect(value).toEqual({ open_source: false, supports_windows: false, supports_linux: true, free_tier: true, release_year: 2016 });
  });

  test("German and French field names over German and French passages", () => {
    expect(
      fill("Brandenburger Tor", brandenburgerTor, { höhe_meter: "number", fertiggestellt: "integer", architekt: "string" }).value,
    ).toEqual({
      höhe_meter: 26,
      fertiggestellt: 1791,
      architekt: "Carl Gotthard Langhans",
    });
    expect(fill("La tour Eiffel", tourEiffel, { hauteur: "number", visiteurs_par_an: "integer" }).value).toEqual({
      hauteur: 330,
      visiteurs_par_an: 6_000_000,
    });
  });

  test("an integer field takes no fraction: 4.5 stars is a number, not an integer", () => {
    const reviews = [source(1, "Acme reviews", ["The rocket skates have an average rating of 4.5 stars from 1,204 reviews."])];
    expect(fill("Acme rocket skates", reviews, { rating: "integer" }).value).toEqual({ rating: null });
    expect(fill("Acme rocket skates", reviews, { rating: "number", reviews: "integer" }).value).toEqual({ rating: 4.5, reviews: 1204 });
  });
});

describe("nested objects are filled field by field, with the parent's words as context", () => {
  test("headquarters city and country come from one place list; the subject's name as the sources spell it", () => {
    const { value } = fill("Acme Corp", acme, {
      name: "string",
      headquarters: { city: "string", country: "string" },
      employees: "integer",
      ceo: "string",
      ticker: "string",
    });
    expect(value).toEqual({
      name: "Acme Corporation",
      headquarters: { city: "Springfield", country: "United States" },
      employees: 12_400,
      ceo: "Daniel Okafor",
      ticker: "ACME",
    });
  });
});

describe("lists gather items from enumerations and list lines across sources", () => {
  test("members named before a copula and after one, kept apart by the field's own words", () => {
    expect(
      fill("Which planets are gas giants?", planets, { gas_giants: ["string"], ice_giants: ["string"], planet_count: "integer" }).value,
    ).toEqual({
      gas_giants: ["Jupiter", "Saturn"],
      ice_giants: ["Uranus", "Neptune"],
      planet_count: 8,
    });
  });

  test("one object per item, each filled from the stretch of text about that item", () => {
    const { value, citations } = fill("Acme Corp products and prices", acme, { products: [{ name: "string", price: "number" }] });
    expect(value).toEqual({
      products: [
        { name: "rocket skates", price: 49.99 },
        { name: "anvils", price: 20 },
        { name: "giant magnets", price: 15 },
        { name: "portable holes", price: 9.5 },
        { name: "earthquake pills", price: null },
      ],
    });
    expect(citedText(citations)).toContain("classic anvil, priced at $20");
  });

  test("list lines under a heading give items and what follows each name", () => {
    expect(fill("Acme Corp leadership", leadership, { leadership_team: [{ name: "string", role: "string" }] }).value).toEqual({
      leadership_team: [
        { name: "Daniel Okafor", role: "Chief executive officer" },
        { name: "Priya Nair", role: "Chief financial officer" },
        { name: "Tomás Alvarez", role: "Head of engineering" },
      ],
    });
  });
});

describe("a field the sources do not support is null, never a guess", () => {
  test("fields whose words appear nowhere", () => {
    expect(
      fill("Acme Corp finances", acme, { mascot: "string", dividend_yield: "number", has_api: "boolean", subsidiaries: ["string"] }).value,
    ).toEqual({
      mascot: null,
      dividend_yield: null,
      has_api: null,
      subsidiaries: null,
    });
  });

  test("no sources at all: every field null, nested objects and lists included", () => {
    const { value, citations } = fill("Acme", [], {
      founded: "integer",
      products: [{ name: "string" }],
      hq: { city: "string" },
      public: "boolean",
    });
    expect(value).toEqual({ founded: null, products: null, hq: null, public: null });
    expect(citations.size).toBe(0);
  });

  test("shapes nothing can be read into (lists of yes/no, lists of lists) are null", () => {
    expect(fill("Nimbus DB", nimbus, { flags: ["boolean"], matrix: [["string"]] }).value).toEqual({ flags: null, matrix: null });
  });
});

describe("fields the sources never name are asked by the prompt", () => {
  const sudan = [
    source(1, "US to lift sanctions on Sudan - World news", [
      "The United States plans to lift economic sanctions on Sudan, officials said on Friday, citing progress on counter-terrorism.",
      "The sanctions were first imposed in 1997. Sudan's government welcomed the decision.",
    ]),
  ];
  const press = [source(1, "Harbour Press – About us", ["The small press has published over 130 titles since it was founded in 1994."])];

  test("a country by name, and a yes/no whose actor is another country than the one the clause is about", () => {
    const { value, citations } = fill("Has the US lifted sanctions on Sudan?", sudan, { country: "string", sanctions_lifted: "boolean" });
    expect(value).toEqual({ country: "Sudan", sanctions_lifted: true });
    expect(citedText(citations)).toContain("plans to lift economic sanctions");
  });

  test("a negated plan is false", () => {
    const negated = [
      source(1, "Sanctions stay", ["The United States will not lift economic sanctions on Sudan this year, officials said."]),
    ];
    expect(fill("Will the US lift sanctions on Sudan?", negated, { sanctions_lifted: "boolean" }).value).toEqual({
      sanctions_lifted: false,
    });
  });

  test("a generic field name takes the number the question asks about", () => {
    expect(fill("How many titles has Harbour Press published?", press, { result: "number" }).value).toEqual({ result: 130 });
  });

  test("a prompt whose words are nowhere in the sources still fills nothing", () => {
    expect(fill("How many employees does Harbour Press have?", press, { result: "number" }).value).toEqual({ result: null });
  });
});

describe("yes/no fields read what is asserted", () => {
  const studio = [
    source(1, "Orbit Games and the server bug", [
      "Orbit Games has failed to patch the server bug for two years. Rumours abound that Orbit Games might re-release its first title next spring. The studio is struggling to make a profit from its arcade line.",
    ]),
  ];

  /** Each rule by example: a prompt over its sources, and the verdict each yes/no field takes (null: none stated). */
  const VERDICTS: [rule: string, prompt: string, sources: EvidenceSource[], verdicts: Record<string, boolean | null>][] = [
    [
      "failing, refusing or struggling to do a thing is not doing it",
      "Orbit Games studio report",
      studio,
      { bug_patched: false, arcade_profitable: false },
    ],
    ["a verdict no source states (confirmed) is not read from a rumour", "Orbit Games re-release", studio, { re_release_confirmed: null }],
    [
      "the clause that holds the verdict word decides, and resisting is not accepting",
      "Meadows, Mugabe, hotel minibars and the developer survey",
      [
        source(1, "Meadows retires; Mugabe; minibars; a survey", [
          "The congressman's wife appears to be supporting Bennett's bid, though she has offered no formal endorsement.",
          "Despite the snacks in the minibar seeming overpriced, hotel owners are still struggling to make a profit from those snacks.",
          "Mr Mugabe is resisting mediation by a Catholic priest.",
          "The site noted that the survey was biased against devs who don't speak English.",
        ]),
      ],
      { wife_formally_endorsed: false, minibars_profitable: false, accepts_mediation: false, survey_biased_against_non_english: true },
    ],
    [
      "the same verdict in other words: no impact on, wasn't allowed to use, unencrypted, instead of",
      "Cargo ship, headset demo, ransomware and party",
      [
        source(1, "Cargo ship lost; a headset tried; ransomware", [
          "An unmanned cargo ship heading to the International Space Station broke up over Siberia. NASA said the crash would have no impact on the operations of the station.",
          "I wasn’t allowed to use the virtual keyboard during the demo.",
          "The ransomware encrypts documents and photos. It leaves files unencrypted if the file extension is .zip and the file size is over 50 MB.",
          "Instead of hiring a DJ, use your phone to spin the tunes.",
        ]),
      ],
      { affects_station_operations: false, virtual_keyboard_tried: false, encrypts_large_zip_files: false, hire_dj: false },
    ],
    [
      "advice is given in the imperative, and a pronoun stands for the name in the sentence before",
      "Party on a budget and the Sixers game",
      [
        source(1, "A graduation party on a budget; Sixers beat Celtics", [
          "A DJ costs a lot for one evening. Instead of hiring a DJ, use your phone to spin the tunes.",
          "Robert Covington was hit in the face late in the first quarter and went to the locker room. However, he quickly returned to the bench and played on.",
        ]),
      ],
      { hire_dj_recommended: false, covington_returned: true },
    ],
  ];

  for (const [rule, prompt, sources, verdicts] of VERDICTS)
    test(rule, () => {
      const shape = Object.fromEntries(Object.keys(verdicts).map((field) => [field, "boolean" as const]));
      expect(fill(prompt, sources, shape).value).toEqual(verdicts);
    });
});

describe("roles", () => {
  test("a role field takes the person holding it, not the role's own title", () => {
    const wiki = [
      source(1, "Wikipedia returns in Turkey", [
        "“We are thrilled,” said Wikimedia Foundation Executive Director Katherine Maher on Thursday.",
      ]),
    ];
    expect(fill("Who leads the Wikimedia Foundation?", wiki, { executive_director: "string" }).value).toEqual({
      executive_director: "Katherine Maher",
    });
  });

  test("the role as the name's title wins; a place that owns the role ('the Territory's Premier') is no person", () => {
    const bvi = [
      source(1, "BVI premier arrested", [
        "Governor John Rankin called for calm after officials arrested the Caribbean Territory’s Premier Andrew Fahie.",
        "The Honourable Deputy Premier Natalio Wheatley will remain Acting Premier of the Territory.",
      ]),
    ];
    expect(fill("BVI Premier Andrew Fahie arrested: who is acting premier?", bvi, { acting_premier: "string" }).value).toEqual({
      acting_premier: "Natalio Wheatley",
    });
    const arrest = [
      source(1, "Arrest in Miami", ["Officials in Miami arrested the Caribbean Territory’s Premier Andrew Fahie on Thursday."]),
    ];
    expect(fill("Who is the BVI premier?", arrest, { premier: "string" }).value).toEqual({ premier: "Andrew Fahie" });
  });

  test("a field named with the subject's own word (chrome_milestone) is asked by its clause when its other words appear nowhere", () => {
    const chrome = [
      source(1, "Enhanced Safe Browsing for Chrome", [
        "If you are signed in to Chrome, this data is linked to your Google Account. Chrome checks the URL of each site you visit against a local list.",
        "It will be rolled out gradually in M83 on desktop platforms.",
      ]),
    ];
    const prompt = "Chrome's Enhanced Safe Browsing: in which Chrome milestone does it roll out, and is the data linked to your account?";
    expect(fill(prompt, chrome, { chrome_milestone: "string" }).value).toEqual({ chrome_milestone: "M83" });
  });

  test('the field\'s word written after a name belongs to it: a hospital is "Royal Shrewsbury hospital"', () => {
    const news = [source(1, "Student dies after taking diet pills", ["Eloise Parry was taken to Royal Shrewsbury hospital on 12 April."])];
    expect(fill("Which hospital was Eloise Parry taken to?", news, { hospital: "string" }).value).toEqual({
      hospital: "Royal Shrewsbury hospital",
    });
  });
});

describe("ages", () => {
  test("an age is the number written as someone's age, not the nearest number", () => {
    const news = [
      source(1, "Student dies after taking diet pills", [
        "Eloise Parry, 21, died in April after taking 8 tablets bought online, police said. The 2 officers on the case are from West Mercia.",
      ]),
      source(2, "Teen driver killed", ["A 15-year-old driver died and 2 passengers were hurt on 117th Avenue."]),
    ];
    expect(fill("How old was Eloise Parry?", news, { age: "integer" }).value).toEqual({ age: 21 });
    expect(fill("How old was the teen driver?", [news[1]!], { driver_age: "integer" }).value).toEqual({ driver_age: 15 });
  });

  test("a thing's age may pass any person's: 'approximately 50,000 years old'", () => {
    const tool = [
      source(1, "Neanderthal tool", ["Carbon dating showed the tool to be approximately 50,000 years old. It was found by 2 volunteers."]),
    ];
    expect(fill("How old is the Neanderthal tool?", tool, { age_years: "integer" }).value).toEqual({ age_years: 50000 });
  });
});

describe("the unit a number field ends in", () => {
  test("a number across a semicolon belongs to another clause", () => {
    const party = [
      source(1, "Graduation parties on a budget", [
        "The average cost of a graduation party in 2013 was a whopping $1,200, according to Graduationparty.com; $700 of that was allocated for food.",
      ]),
    ];
    const prompt = "Graduation party on a budget: what was the average cost of a graduation party in 2013, and which website is that from?";
    expect(fill(prompt, party, { average_cost_usd: "number" }).value).toEqual({ average_cost_usd: 1200 });
  });

  test("interest_next_year_usd is money, though it names a year", () => {
    const debt = [
      source(1, "Interest on the debt", [
        "The cost of interest is on track to hit $390 billion next year, nearly 50 percent more than in 2017, according to the Congressional Budget Office.",
      ]),
    ];
    expect(fill("US debt: how much will interest cost next year?", debt, { interest_next_year_usd: "number" }).value).toEqual({
      interest_next_year_usd: 390_000_000_000,
    });
  });
});

describe("items written into prose", () => {
  test("a country named with 'and' is one item, and its date comes from its own stretch", () => {
    const football = [
      source(1, "Barbados Tridents prepare for the Nations League", [
        "The Tridents will oppose Antigua and Barbuda on June 2 in Bridgetown, and Guadeloupe will be their next opponents on June 9.",
      ]),
    ];
    const { value } = fill("Who are the Barbados Tridents next opponents?", football, {
      fixtures: [{ opponent: "string", date: "string" }],
    });
    const fixtures = (value as { fixtures: { opponent: string; date: string | null }[] }).fixtures;
    expect(fixtures).toContainEqual({ opponent: "Antigua and Barbuda", date: "June 2" });
    expect(fixtures).toContainEqual({ opponent: "Guadeloupe", date: "June 9" });
  });

  test("the names a sentence strings together are the items; each item's number comes from its own stretch", () => {
    const whales = [
      source(1, "A deadly month for New Zealand's whales", [
        "November has been a grim month for marine mammals, with 140 pilot whales beaching and dying on Stewart Island, 10 rare pygmy whales on Ninety Mile Beach, and 51 stranded on the Chatham Islands.",
      ]),
    ];
    const { value } = fill("Whale strandings in New Zealand this November", whales, {
      strandings: [{ location: "string", whale_count: "integer" }],
    });
    expect(value).toEqual({
      strandings: [
        { location: "Stewart Island", whale_count: 140 },
        { location: "Ninety Mile Beach", whale_count: 10 },
        { location: "Chatham Islands", whale_count: 51 },
      ],
    });
  });
});

describe("the prompt's own clause for each field", () => {
  const colophon = [
    source(1, "Colophon – Daring Fireball", [
      "Daring Fireball is written and produced by John Gruber. The site is hosted by Joyent. Articles and links are published through Movable Type. Stats are tracked using Mint.",
    ]),
    source(2, "Podcast economics", ["She based that on the numbers provided by ATP in terms of sponsorship rates."]),
  ];

  test("a field whose words no source uses is found by its clause's words: hosting_provider is 'which company hosts it'", () => {
    const { value } = fill("Daring Fireball colophon: which company hosts it, and what publishing software does it run on?", colophon, {
      hosting_provider: "string",
      publishing_software: "string",
    });
    expect(value).toEqual({ hosting_provider: "Joyent", publishing_software: "Movable Type" });
  });

  test("the clause finds the sentence the field's own words miss: a recipient named only as 'given to'", () => {
    const sources = [
      source(1, "Photographer fights back", [
        "Donations poured in after the story aired. Hicks, a Navy veteran herself, plans to give 15 percent of all profits from these shoots to the USO.",
      ]),
    ];
    const { value } = fill("Photographer Vanessa Hicks: which organisation gets the donation of her profits from the shoots?", sources, {
      donation_recipient: "string",
    });
    expect(value).toEqual({ donation_recipient: "USO" });
  });
});

describe("a field ending in 'by' is read by its clause", () => {
  test("'by what year' asks for a year, not for who", () => {
    const pledge = [
      source(1, "Microsoft's climate pledge", [
        "Microsoft Corp said on Thursday it aims to remove more carbon from the atmosphere than it emits by 2030, chief executive Satya Nadella said.",
      ]),
    ];
    const prompt =
      "Microsoft's carbon removal pledge: by what year does Microsoft aim to remove more carbon than it emits, and who is its chief executive?";
    expect(fill(prompt, pledge, { carbon_negative_by: "string", ceo: "string" }).value).toEqual({
      carbon_negative_by: "2030",
      ceo: "Satya Nadella",
    });
  });
});

describe("text fields with a written form of their own", () => {
  const story = [
    source(1, "Peanut allergy study", [
      "She's the director of the Center for Food and Allergy Research at the Murdoch Children's Research Institute in Melbourne, Australia. Allen was not involved in the research.",
      "Reach the press office by email at press@mcri.example.org or by phone on +61 3 9345 5522.",
    ]),
  ];

  test("an e-mail, phone or website field takes only an address or number, and is null where none is written", () => {
    expect(
      fill("Peanut study: the lead researcher's email and phone", story, { lead_researcher_email: "string", phone: "string" }).value,
    ).toEqual({
      lead_researcher_email: "press@mcri.example.org",
      phone: "+61 3 9345 5522",
    });
    expect(
      fill(
        "Peanut study: the lead researcher's email",
        [story[0]!].map((s) => ({ ...s, passages: s.passages.slice(0, 1) })),
        {
          lead_researcher_email: "string",
          studio_phone: "string",
          website: "string",
        },
      ).value,
    ).toEqual({ lead_researcher_email: null, studio_phone: null, website: null });
  });

  test("a role is its field's head noun: a minister is a person, an analyst's firm is not", () => {
    const sources = [
      source(1, "Museum attack", [
        "Tunisian Prime Minister Habib Essid said a local museum worker and a security official were killed.",
        "Rachel Stephens, an analyst at RedMonk, said the survey was broad.",
      ]),
    ];
    expect(
      fill("Bardo museum attack: the prime minister, and Rachel Stephens' analyst firm", sources, {
        prime_minister: "string",
        analyst_firm: "string",
      }).value,
    ).toEqual({
      prime_minister: "Habib Essid",
      analyst_firm: "RedMonk",
    });
  });
});

describe("it is fast enough to run on every search", () => {
  test("a dozen fields over thirty passages take a few milliseconds", () => {
    const sources = [...eiffel, ...acme, ...planets, ...brandenburgerTor, ...tourEiffel, ...nimbus, ...leadership].map((s, i) => ({
      ...s,
      id: i + 1,
    }));
    const many = [...sources, ...sources.map((s) => ({ ...s, id: s.id + sources.length }))];
    expect(many.reduce((n, s) => n + s.passages.length, 0)).toBeGreaterThanOrEqual(30);
    const shape: { [field: string]: OutputShape } = {
      founded: "integer",
      founder: "string",
      public: "boolean",
      products: [{ name: "string", price: "number" }],
      headquarters: { city: "string", country: "string" },
      employees: "integer",
      ceo: "string",
      revenue: "number",
    };
    const schema = toJsonSchema(shape);
    fillOutputFormat({ prompt: "Acme Corp", shape, schema, sources: many });
    const started = performance.now();
    for (let i = 0; i < 10; i++) fillOutputFormat({ prompt: "Acme Corp", shape, schema, sources: many });
    // A guard against a blow-up (quadratic matching), not a speed target (those live in bench/): loose enough for a busy machine.
    expect((performance.now() - started) / 10).toBeLessThan(250);
  });
});

describe("sentences the prompt finds", () => {
  test("a field none of whose words a sentence holds is read from the prompt's best sentences", () => {
    const sources = [
      source(1, "Graduation party on a budget", [
        "The average cost of a graduation party in 2013 was a whopping $1,200, according to Graduationparty.com; that is a lot of money for a party.",
        "Online radio can take the place of a hired DJ.",
      ]),
      source(2, "Hiring trends", ["Developer surveys are published by the website Stack Overflow every year."]),
    ];
    const { value } = fill("What was the average cost of a graduation party in 2013, and which website is that figure from?", sources, {
      source_website: "string",
    });
    expect(value).toEqual({ source_website: "Graduationparty.com" });
  });
});
