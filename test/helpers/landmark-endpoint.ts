/** A designed endpoint the tests share, alone in its file so the browser tests (under Node) can import it without the app. */

/** An endpoint whose inputs, output and graph are given, so tests do not depend on the designer's wording. */
export const landmarkEndpoint = {
  original_prompt: "Given a landmark, find the year it was completed, its height in metres and its designer",
  api_name: "Landmark facts",
  inputs: [
    { name: "landmark", type: "string", description: "The landmark's name" },
    { name: "city", type: "string", required: false, default: "Paris" },
    { name: "language", type: "string", required: false, default: null },
  ],
  output_format: { completed_year: "integer", height_metres: "number", designer: "string" },
  graph: {
    nodes: [
      {
        id: "research",
        type: "search_agent",
        name: "Research",
        system_prompt: "Facts about {landmark} in {city}",
        output_format: { completed_year: "integer", height_metres: "number", designer: "string" },
      },
    ],
    edges: [],
  },
};
