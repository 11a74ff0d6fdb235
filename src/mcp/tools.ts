/**
 * The tools the MCP face lists for a caller: `search` and `contents`, one
 * per live designed endpoint of theirs, and one per published endpoint they
 * subscribed to. Each is a route of the HTTP API with
 * the route's own body as its input: a tool call is that route called with
 * the caller's key (see server.ts), so a tool can never do what the route
 * would refuse.
 */
import type { JsonSchema } from "../research/output-format.ts";
import { requestSchema, responseSchema } from "../endpoints/integration.ts";
import { liveVersion } from "../endpoints/lifecycle.ts";
import { ownerVersions, type VersionWithStub } from "../endpoints/queries.ts";
import { shownInputs } from "../endpoints/record.ts";
import type { OutputFormat } from "../endpoints/rules.ts";
import { subscribedEndpoints } from "../marketplace/subscriptions.ts";
import type { EndpointsContext } from "../endpoints/service.ts";

export interface ToolRoute {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** The HTTP route the call goes to, and what the answer is shown as. */
  path: string;
  answer: "research" | "page";
}

const CONTEXT_ENTRY: JsonSchema = {
  type: "object",
  properties: {
    id: { type: "integer" },
    metadata: { type: "object", properties: { title: { type: "string" }, url: { type: "string" }, content: { type: "string" } } },
  },
  required: ["id", "metadata"],
};

/** {response, context, info}, the answer of a search and of a designed endpoint; `response` as the caller shaped it. */
export function researchOutput(response: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: { response, context: { type: "array", items: CONTEXT_ENTRY }, info: { type: "object" } },
    required: ["response", "context", "info"],
  };
}

const DOMAINS: JsonSchema = { type: ["array", "null"], items: { type: "string", maxLength: 253 }, maxItems: 200 };

const SEARCH: ToolRoute = {
  name: "search",
  title: "Web search with a cited answer",
  description:
    "Searches the web, reads the sources and answers the prompt with [n] citations of the sources listed after it. " +
    "With output_format ({field: type}, types string, number, integer, boolean, or nested objects and lists of them) " +
    "the answer is an object of that shape. Use source_whitelist / source_blacklist to keep to or avoid domains.",
  inputSchema: {
    type: "object",
    properties: {
      prompt: { type: "string", minLength: 1, maxLength: 10_000, description: "What to research, in plain words." },
      output_format: { type: ["object", "null"], description: 'The answer\'s shape, e.g. {"ceo": "string", "founded": "integer"}.' },
      source_whitelist: { ...DOMAINS, description: "Only use sources from these domains." },
      source_blacklist: { ...DOMAINS, description: "Never use sources from these domains." },
      image: { type: ["string", "null"], description: "An image to research from: an https URL or a data: URL." },
    },
    required: ["prompt"],
  },
  outputSchema: researchOutput({ type: ["string", "object"] }),
  path: "/v1/search",
  answer: "research",
};

const CONTENTS: ToolRoute = {
  name: "contents",
  title: "Read a web page",
  description: "Reads one public web page (PDFs too) and returns its main content as markdown, text or HTML, with its title and metadata.",
  inputSchema: {
    type: "object",
    properties: {
      url: { type: "string", minLength: 1, maxLength: 4096, description: "An absolute http or https URL." },
      format: { type: "string", enum: ["markdown", "text", "html"], description: "Default markdown." },
      max_characters: { type: "integer", minimum: 1, maximum: 10_000_000, description: "Cut the content to at most this many characters." },
    },
    required: ["url"],
  },
  path: "/v1/contents",
  answer: "page",
};

const BUILT_IN = [SEARCH, CONTENTS];
/** MCP tool names: letters, digits, "_", "-" and ".", at most 64 (protocol revision 2025-11-25). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The caller's tools: the built-ins, each of their endpoints' live version
 * under its stub, then each published endpoint they subscribed to, its
 * newest version under its public stub (or `<stub>_published` where that
 * name is taken). A listing whose publisher is suspended is left out: its
 * calls are refused.
 */
export async function callerTools(endpoints: EndpointsContext, accountId: string): Promise<ToolRoute[]> {
  const tools = [...BUILT_IN];
  const add = (name: string, tool: Omit<ToolRoute, "name" | "inputSchema" | "outputSchema" | "answer">, version: Contract) => {
    if (!TOOL_NAME.test(name)) return;
    tools.push({
      ...tool,
      name,
      description: tool.description.slice(0, 1000),
      inputSchema: requestSchema(shownInputs(version.inputs)),
      outputSchema: responseSchema(version.outputFormat as OutputFormat),
      answer: "research",
    });
  };
  const lineages = new Map<string, VersionWithStub[]>();
  for (const row of await ownerVersions(endpoints.db, accountId))
    lineages.set(row.endpointId, [...(lineages.get(row.endpointId) ?? []), row]);
  for (const versions of lineages.values()) {
    const live = versions.find((v) => v.version === liveVersion(versions))!;
    // A stub that is also a built-in's name ("search") keeps the built-in's; the endpoint is named apart.
    const name = BUILT_IN.some((t) => t.name === live.stub) ? `${live.stub}_endpoint` : live.stub;
    add(
      name,
      { title: live.apiName, description: `${live.apiName}: ${live.originalPrompt}`, path: `/v1/user-defined-service/${live.stub}` },
      live,
    );
  }
  for (const sub of await subscribedEndpoints(endpoints, accountId)) {
    if (sub.publisherStatus !== "active") continue;
    const name = tools.some((t) => t.name === sub.publicStub) ? `${sub.publicStub}_published` : sub.publicStub;
    add(
      name,
      {
        title: sub.title,
        description: `${sub.title} (from the marketplace): ${sub.description || sub.newest.originalPrompt}`,
        path: `/v1/published-service/${sub.publicStub}`,
      },
      sub.newest,
    );
  }
  return tools;
}

/** What a tool's schemas are read from: an endpoint version or a published snapshot. */
type Contract = { inputs: unknown[]; outputFormat: unknown };
