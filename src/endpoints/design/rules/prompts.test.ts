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
  ["the prompts issue 15 found misread give the designs it expects", ISSUE_PROMPTS],
  ["more everyday prompts read the same way", MORE_PROMPTS],
] as const) {
  describe(title, () => {
    for (const c of cases) {
      test(c.prompt.slice(0, 80), () => {
        const design = designByRules(c.prompt);
        expect(inputsOf(design)).toEqual(c.inputs as never);
        expect(design.output_format).toEqual(c.output_format);
        expect(design.api_name).toBe(c.api_name);
        expectValidDesign(design, c.prompt);
      });
    }
  });
}
