import { describe, expect, test } from "bun:test";
import { expectValidDesign, inputsOf, req } from "../../../../test/helpers/designs.ts";
import { designByRules } from "./index.ts";

interface Case {
  prompt: string;
  api_name: string;
  /** name, type, required, and default when there is one. */
  inputs: Record<string, unknown>[];
  output_format: Record<string, unknown>;
}

/** Everyday prompts and the designs the rules give them: the designer's spec by example. */
const CASES: Case[] = [
  {
    prompt: "Given a company name, find its CEO, founding year, number of employees and whether it is publicly traded",
    api_name: "Company profile",
    inputs: [req("company_name")],
    output_format: { ceo: "string", founding_year: "integer", number_of_employees: "integer", is_publicly_traded: "boolean" },
  },
  {
    prompt: "For a city, list the top tourist attractions with their ticket prices and opening hours",
    api_name: "City tourist attractions",
    inputs: [req("city")],
    output_format: { tourist_attractions: [{ name: "string", ticket_price: "number", opening_hours: "string" }] },
  },
  {
    prompt: "Tell me about a person: their nationality, date of birth, occupation and notable awards",
    api_name: "Person profile",
    inputs: [req("person")],
    output_format: { nationality: "string", date_of_birth: "string", occupation: "string", notable_awards: ["string"] },
  },
  {
    prompt: "For any product, get the price, average rating, manufacturer and a list of key features",
    api_name: "Product profile",
    inputs: [req("product")],
    output_format: { price: "number", average_rating: "number", manufacturer: "string", key_features: ["string"] },
  },
  {
    prompt: "Given the DOI of a research paper, return its title, authors, publication year, journal, citation count and abstract summary",
    api_name: "Research paper profile",
    inputs: [req("doi")],
    output_format: {
      title: "string",
      authors: ["string"],
      publication_year: "integer",
      journal: "string",
      citation_count: "integer",
      abstract_summary: "string",
    },
  },
  {
    prompt: "What is the capital, population, official languages and currency of a country?",
    api_name: "Country profile",
    inputs: [req("country")],
    output_format: { capital: "string", population: "integer", official_languages: ["string"], currency: "string" },
  },
  {
    prompt: "Look up a stock by ticker symbol and return the current price, market cap, P/E ratio and 52-week high",
    api_name: "Stock profile",
    inputs: [req("ticker_symbol")],
    output_format: { current_price: "number", market_cap: "number", pe_ratio: "number", "52_week_high": "number" },
  },
  {
    prompt: "Given a dish name, find a recipe with its ingredients, preparation steps, cooking time in minutes and number of servings",
    api_name: "Dish recipe",
    inputs: [req("dish_name")],
    output_format: {
      recipe: {
        name: "string",
        ingredients: ["string"],
        preparation_steps: ["string"],
        cooking_time_minutes: "number",
        number_of_servings: "integer",
      },
    },
  },
  {
    prompt: "List major tech events between two dates, with their location and date",
    api_name: "Major tech events",
    inputs: [req("start_date"), req("end_date")],
    output_format: { major_tech_events: [{ name: "string", location: "string", date: "string" }] },
  },
  {
    prompt: "Compare two companies by revenue, number of employees and market capitalization",
    api_name: "Company comparison",
    inputs: [req("company_a"), req("company_b")],
    output_format: {
      company_a: { name: "string", revenue: "number", number_of_employees: "integer", market_capitalization: "number" },
      company_b: { name: "string", revenue: "number", number_of_employees: "integer", market_capitalization: "number" },
      comparison: "string",
    },
  },
  {
    prompt:
      "What was the revenue of {company} in {year}? Also give the net income and the number of employees, counting subsidiaries only if {include_subsidiaries} is true.",
    api_name: "Company profile",
    inputs: [req("company"), req("year", "number"), req("include_subsidiaries", "boolean")],
    output_format: { revenue: "number", net_income: "number", number_of_employees: "integer" },
  },
  {
    prompt:
      "Given a city, optionally a country, and a currency (default: USD), find the average monthly rent and the cost of living index for a given year, defaulting to 2024.",
    api_name: "City average monthly rent and cost of living index",
    inputs: [
      req("city"),
      { name: "country", type: "string", required: false },
      { name: "currency", type: "string", required: false, default: "USD" },
      { name: "year", type: "number", required: false, default: 2024 },
    ],
    output_format: { average_monthly_rent: "number", cost_of_living_index: "number" },
  },
  {
    prompt: "Für ein Unternehmen finde den Geschäftsführer, das Gründungsjahr und die Anzahl der Mitarbeiter.",
    api_name: "Company profile",
    inputs: [req("company")],
    output_format: { geschaeftsfuehrer: "string", gruendungsjahr: "integer", anzahl_mitarbeiter: "integer" },
  },
  {
    prompt: "Pour une ville, donne la population, le maire et le code postal.",
    api_name: "City profile",
    inputs: [req("city")],
    output_format: { population: "integer", maire: "string", code_postal: "string" },
  },
  {
    prompt: "Para una empresa, encuentra el director ejecutivo y el año de fundación.",
    api_name: "Company director ejecutivo and ano fundacion",
    inputs: [req("company")],
    output_format: { director_ejecutivo: "string", ano_fundacion: "integer" },
  },
  {
    prompt: "Summarize the latest developments in quantum computing",
    api_name: "Latest developments in quantum computing",
    inputs: [req("query")],
    output_format: { summary: "string", key_facts: ["string"] },
  },
  {
    prompt: "Find books by ISBN: title, author, publisher, page count and genres",
    api_name: "Book profile",
    inputs: [req("isbn")],
    output_format: { title: "string", author: "string", publisher: "string", page_count: "integer", genres: ["string"] },
  },
  {
    prompt: "Find news articles about {topic} published between {start_date} and {end_date}",
    api_name: "Topic news articles",
    inputs: [req("topic"), req("start_date"), req("end_date")],
    output_format: { news_articles: ["string"] },
  },
  {
    prompt: "Given an optional year, list the Nobel Prize winners with their field and nationality",
    api_name: "Nobel prize winners",
    inputs: [{ name: "year", type: "number", required: false }],
    output_format: { nobel_prize_winners: [{ name: "string", field: "string", nationality: "string" }] },
  },
  {
    prompt: "Find hotels in a city with more than 100 rooms and give me their names and prices",
    api_name: "City hotels",
    inputs: [req("city")],
    output_format: { hotels: [{ name: "string", price: "number" }] },
  },
  {
    prompt: "For each country in a region, list the population and GDP per capita",
    api_name: "Region countries",
    inputs: [req("region")],
    output_format: { countries: [{ name: "string", population: "integer", gdp_per_capita: "number" }] },
  },
  {
    prompt: "Company profile: CEO, headquarters, revenue and website",
    api_name: "Company profile",
    inputs: [req("company")],
    output_format: { ceo: "string", headquarters: "string", revenue: "number", website: "string" },
  },
  {
    prompt: "Given a ticker symbol, return the company name, sector and dividend yield",
    api_name: "Stock profile",
    inputs: [req("ticker_symbol")],
    output_format: { company_name: "string", sector: "string", dividend_yield: "number" },
  },
  {
    prompt: "Find the top 5 podcasts about a topic with their host and episode count",
    api_name: "Topic podcasts",
    inputs: [req("topic")],
    output_format: { podcasts: [{ title: "string", host: "string", episode_count: "integer" }] },
  },
  {
    prompt: "For a movie, get the director, release year, box office revenue, runtime in minutes and the main cast",
    api_name: "Movie profile",
    inputs: [req("movie")],
    output_format: {
      director: "string",
      release_year: "integer",
      box_office_revenue: "number",
      runtime_minutes: "number",
      main_cast: ["string"],
    },
  },
  {
    prompt:
      "Given a company, tell me who the CEO is, when it was founded, how many people work there, whether it has a free tier and does it offer an API?",
    api_name: "Company profile",
    inputs: [req("company")],
    output_format: { ceo: "string", year_founded: "integer", number_of_people: "integer", has_free_tier: "boolean", offers_api: "boolean" },
  },
  {
    prompt: "Given a company name, find its CEO with their email and LinkedIn URL, and the main competitors",
    api_name: "Company CEO and main competitors",
    inputs: [req("company_name")],
    output_format: { ceo: { name: "string", email: "string", linkedin_url: "string" }, main_competitors: ["string"] },
  },
];

const laptop = { name: "string", price: "number", weight: "number", battery_life: "number" };
const city = { name: "string", cost_of_living: "number", average_rent: "number", population: "integer" };

/** The prompts issue 15 found misread, as the issue expects them. */
const ISSUE_PROMPTS: Case[] = [
  {
    prompt: "Takes a company name and returns their ESG score",
    api_name: "Company ESG score",
    inputs: [req("company_name")],
    output_format: { esg_score: "number" },
  },
  {
    prompt: "Given a city, return the forecast for the next 3 days with high and low temperatures",
    api_name: "City forecast",
    inputs: [req("city")],
    output_format: { forecast: [{ date: "string", high: "number", low: "number" }] },
  },
  {
    prompt: "Find the CEO, headquarters and founding year of a company",
    api_name: "Company profile",
    inputs: [req("company")],
    output_format: { ceo: "string", headquarters: "string", founding_year: "integer" },
  },
  {
    prompt: "For a stock ticker, tell me whether analysts rate it a buy and the average price target",
    api_name: "Stock buy rating and average price target",
    inputs: [req("ticker")],
    output_format: { is_buy_rating: "boolean", average_price_target: "number" },
  },
  {
    prompt: "List the top restaurants in {city} serving {cuisine}, with name, address and rating",
    api_name: "City restaurants",
    inputs: [req("city"), req("cuisine")],
    output_format: { restaurants: [{ name: "string", address: "string", rating: "number" }] },
  },
  {
    prompt: "Compare two laptops by price, weight and battery life",
    api_name: "Laptop comparison",
    inputs: [req("laptop_a"), req("laptop_b")],
    output_format: { laptop_a: laptop, laptop_b: laptop, comparison: "string" },
  },
];

/** More prompts in the same spirit: endpoints described in the third person, yes/no checks, series, lists of rows. */
const MORE_PROMPTS: Case[] = [
  {
    prompt: "Given an ISBN, return the book's title, author and page count",
    api_name: "Book profile",
    inputs: [req("isbn")],
    output_format: { title: "string", author: "string", page_count: "integer" },
  },
  {
    prompt: "Check if a website is down",
    api_name: "Website down check",
    inputs: [req("website")],
    output_format: { is_down: "boolean" },
  },
  {
    prompt: "For a country, list its five largest cities with population",
    api_name: "Country largest cities",
    inputs: [req("country")],
    output_format: { largest_cities: [{ name: "string", population: "integer" }] },
  },
  {
    prompt: "Takes a movie title and returns its director and release year",
    api_name: "Movie director and release year",
    inputs: [req("movie_title")],
    output_format: { director: "string", release_year: "integer" },
  },
  {
    prompt: "Given a flight number, tell me whether it is delayed and the expected arrival time",
    api_name: "Flight delayed and expected arrival time",
    inputs: [req("flight_number")],
    output_format: { is_delayed: "boolean", expected_arrival_time: "string" },
  },
  {
    prompt: "Accepts a product URL and returns the product name, price, and whether it is in stock",
    api_name: "Product profile",
    inputs: [req("product_url")],
    output_format: { product_name: "string", price: "number", is_in_stock: "boolean" },
  },
  {
    prompt: "Get the daily closing price of a stock for the last 30 days",
    api_name: "Stock daily closing prices",
    inputs: [req("stock")],
    output_format: { daily_closing_prices: [{ date: "string", daily_closing_price: "number" }] },
  },
  {
    prompt: "Does a restaurant offer vegan options?",
    api_name: "Restaurant vegan options check",
    inputs: [req("restaurant")],
    output_format: { offers_vegan_options: "boolean" },
  },
  {
    prompt: "Compare two cities by cost of living, average rent and population",
    api_name: "City comparison",
    inputs: [req("city_a"), req("city_b")],
    output_format: { city_a: city, city_b: city, comparison: "string" },
  },
  {
    prompt: "List the ten most cited papers on {topic} with title, authors and year",
    api_name: "Topic most cited papers",
    inputs: [req("topic")],
    output_format: { most_cited_papers: [{ title: "string", authors: ["string"], year: "integer" }] },
  },
  {
    prompt: "Get the hourly weather forecast for a city for the next 24 hours with temperature and chance of rain",
    api_name: "City hourly weather forecast",
    inputs: [req("city")],
    output_format: { hourly_weather_forecast: [{ time: "string", temperature: "number", chance_of_rain: "number" }] },
  },
  {
    prompt: "Check whether a drug is approved by the FDA",
    api_name: "Drug approved by FDA check",
    inputs: [req("drug")],
    output_format: { is_approved_by_fda: "boolean" },
  },
  {
    prompt: "For a podcast, tell me whether critics recommend it and how many episodes it has",
    api_name: "Podcast recommended and number of episodes",
    inputs: [req("podcast")],
    output_format: { is_recommended: "boolean", number_of_episodes: "integer" },
  },
  {
    prompt: "Is a given domain name available to register?",
    api_name: "Domain available to register check",
    inputs: [req("domain_name")],
    output_format: { is_available_to_register: "boolean" },
  },
  {
    prompt: "Find the minimum and maximum price of a product",
    api_name: "Product minimum price and maximum price",
    inputs: [req("product")],
    output_format: { minimum_price: "number", maximum_price: "number" },
  },
  {
    prompt: "For a company, give me its revenue for the last 5 years",
    api_name: "Company revenues",
    inputs: [req("company")],
    output_format: { revenues: [{ year: "integer", revenue: "number" }] },
  },
  {
    prompt: "Given a smartphone, what is its screen size, battery life in hours and weight in grams?",
    api_name: "Smartphone profile",
    inputs: [req("smartphone")],
    output_format: { screen_size: "number", battery_life_hours: "number", weight_grams: "number" },
  },
  {
    prompt: "Given a band, list their albums with release year and number of tracks",
    api_name: "Band albums",
    inputs: [req("band")],
    output_format: { albums: [{ title: "string", release_year: "integer", number_of_tracks: "integer" }] },
  },
  {
    prompt: "Find the top 10 universities in a country with their tuition and acceptance rate",
    api_name: "Country universities",
    inputs: [req("country")],
    output_format: { universities: [{ name: "string", tuition: "number", acceptance_rate: "number" }] },
  },
  {
    prompt: "Given a GitHub repository URL, return the number of stars, the main language and whether it is archived",
    api_name: "Github repository profile",
    inputs: [req("github_repository_url")],
    output_format: { number_of_stars: "integer", main_language: "string", is_archived: "boolean" },
  },
  {
    prompt: "For a hotel, find its star rating, price per night and whether breakfast is included",
    api_name: "Hotel profile",
    inputs: [req("hotel")],
    output_format: { star_rating: "number", price_per_night: "number", is_breakfast_included: "boolean" },
  },
  {
    prompt: "Takes an address and returns its latitude and longitude",
    api_name: "Address latitude and longitude",
    inputs: [req("address")],
    output_format: { latitude: "number", longitude: "number" },
  },
  {
    prompt: "Given a company, what programming languages does it use and which cities has it offices in?",
    api_name: "Company programming languages and cities",
    inputs: [req("company")],
    output_format: { programming_languages: ["string"], cities: ["string"] },
  },
  {
    prompt: "What awards has a given film won?",
    api_name: "Film awards",
    inputs: [req("film")],
    output_format: { awards: ["string"] },
  },
  {
    prompt: "Given a person, is he or she still alive?",
    api_name: "Person still alive check",
    inputs: [req("person")],
    output_format: { is_still_alive: "boolean" },
  },
  {
    prompt: "Given two cities, find the flight time between them",
    api_name: "City flight time",
    inputs: [req("first_city"), req("second_city")],
    output_format: { flight_time: "string" },
  },
  {
    prompt: "For a stock, give the high and low prices for the last 10 days",
    api_name: "Stock highs and lows",
    inputs: [req("stock")],
    output_format: { highs: [{ date: "string", high: "number" }], lows: [{ date: "string", low: "number" }] },
  },
  {
    prompt: "Given a city, return the 3-day forecast with high and low temperatures",
    api_name: "City forecast",
    inputs: [req("city")],
    output_format: { forecast: [{ date: "string", high: "number", low: "number" }] },
  },
  {
    prompt: "For a stock, give its 12-month price history",
    api_name: "Stock price history",
    inputs: [req("stock")],
    output_format: { price_history: [{ month: "string", price: "number" }] },
  },
  {
    prompt: "Find the 52-week high of a stock",
    api_name: "Stock 52 week high",
    inputs: [req("stock")],
    output_format: { "52_week_high": "number" },
  },
  {
    prompt: "For a stock ticker, tell me whether analysts rate the stock a buy",
    api_name: "Stock buy rating check",
    inputs: [req("ticker")],
    output_format: { is_buy_rating: "boolean" },
  },
];

for (const [title, cases] of [
  ["everyday prompts give the designs a person would write", CASES],
  ["the prompts issue 15 found misread give the designs it expects", ISSUE_PROMPTS],
  ["more everyday prompts read the same way", MORE_PROMPTS],
] as const) {
  describe(title, () => {
    for (const c of cases) {
      test(c.prompt.slice(0, 80), () => {
        const design = designByRules(c.prompt);
        expect(design.api_name).toBe(c.api_name);
        expect(inputsOf(design)).toEqual(c.inputs as never);
        expect(design.output_format).toEqual(c.output_format);
        expectValidDesign(design, c.prompt);
      });
    }
  });
}

const RAMBLING =
  "Hi! So I'm putting together a little market research thing for my team and honestly I've been doing it by hand for weeks, which is painful. " +
  "What I'd love is something where, for each company I give you, you go out and figure out a bunch of stuff. I need to know who the CEO is, when it was founded, and how many people work there. " +
  "It would also be great to get the headquarters address and the annual revenue in USD. Oh, and tell me whether it is publicly traded, because that matters a lot for us. " +
  "Also some context: we mostly look at European fintechs but sometimes American ones too, and my manager keeps changing her mind about which ones matter, so the list changes every week. " +
  "Last quarter we spent ages on a spreadsheet that nobody updated, and then the numbers were all from 2019, which was embarrassing in front of the board. " +
  "Please be careful with sources, a lot of blogs are out of date, and press releases tend to exaggerate. If you can, prefer annual reports and official filings. " +
  "I don't need a long essay, just the facts. Thanks so much, you're a lifesaver!";

// Prompts no rule was written for: each must still give a valid design.
const ODD = [
  "",
  "   ",
  "!!!",
  "{",
  "}{",
  "{{}}",
  "{max_results}",
  "{1abc} and {ok}",
  "Given a",
  "for a",
  "compare two",
  "between two",
  "中文提示：给定一个城市，列出旅游景点",
  "Привет, найди всё о компании",
  "a".repeat(20_000),
  RAMBLING.repeat(40),
  // Words that are also Object.prototype's names, and a word longer than a field name may be.
  "For a constructor, find its toString, __proto__ and whether it is hasOwnProperty",
  "para un constructor",
  "Find " + "x".repeat(500),
  "Compare two e-books",
  "Look up a 3d model by name",
  "Given a 東京, find it",
];

describe("a long rambling prompt still gives the facts it asks for", () => {
  test("the subject and the asks are found among the chatter", () => {
    const design = designByRules(RAMBLING);
    expect(design.api_name).toBe("Company profile");
    expect(inputsOf(design)).toEqual([req("company")]);
    expect(design.output_format).toEqual({
      ceo: "string",
      year_founded: "integer",
      number_of_people: "integer",
      headquarters_address: "string",
      annual_revenue_usd: "number",
      is_publicly_traded: "boolean",
    });
  });
});

describe("every design is valid, whatever the prompt", () => {
  for (const prompt of [...CASES.map((c) => c.prompt), RAMBLING, ...ODD]) {
    test(JSON.stringify(prompt.slice(0, 40)), () => expectValidDesign(designByRules(prompt), prompt));
  }

  test("a prompt with no identifiable subject gets one query input and the summary format", () => {
    for (const prompt of ["", "!!!", "Tell me something interesting", "中文提示：给定一个城市，列出旅游景点"]) {
      const design = designByRules(prompt);
      expect(inputsOf(design)).toEqual([req("query")]);
      expect(design.output_format).toEqual({ summary: "string", key_facts: ["string"] });
      expect(design.graph.nodes[0]!.system_prompt).toContain("{query}");
    }
  });
});
