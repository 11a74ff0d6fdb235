/**
 * The tools the MCP face lists for a caller: `search`, `contents`,
 * `start_task` and `get_task`, one per live designed endpoint of theirs, and one per published endpoint they
 * subscribed to. Each is a route of the HTTP API with the route's own body
 * as its input, read from the OpenAPI document the route's TypeBox models
 * make (an endpoint's: its integration request_schema and response_schema,
 * what the endpoint publishes to every caller): a tool call is
 * that route called with the caller's key (see server.ts), so a tool can
 * never do what the route would refuse, nor promise a limit it does not keep.
 */
import type { ApiDocument } from "../http/openapi.ts";
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
  /**
   * The HTTP route the call goes to, and what the answer is shown as. A POST
   * sends the arguments as its body; a GET fills its path's `{name}`s from
   * the arguments of those names.
   */
  method: "POST" | "GET";
  path: string;
  answer: "research" | "page" | "task";
}

/** Where a tool's schemas come from: the app's OpenAPI document, which the routes' own TypeBox models make. */
export type ToolSchemas = Pick<ApiDocument, "requestBody" | "response" | "pathParameters">;

const SEARCH_PATH = "/v1/search";
const CONTENTS_PATH = "/v1/contents";
const TASKS_PATH = "/v1/tasks";
const TASK_PATH = "/v1/tasks/{task_id}";

/** An operation's schema in the document; a face that lost its route's schema is a bug, not an empty schema. */
function documented(schema: JsonSchema | undefined, what: string): JsonSchema {
  if (!schema) throw new Error(`the OpenAPI document has no ${what}`);
  return schema;
}

/** search, contents and the tasks': each its route's request body (or path parameters), and its route's answer where it has one shape. */
function builtIns(schemas: ToolSchemas): ToolRoute[] {
  return [
    {
      name: "search",
      title: "Web search with a cited answer",
      description:
        "Searches the web, reads the sources and answers the prompt with [n] citations of the sources listed after it. " +
        "With output_format ({field: type}, types string, number, integer, boolean, or nested objects and lists of them) " +
        "the answer is an object of that shape. Use source_whitelist / source_blacklist to keep to or avoid domains.",
      inputSchema: documented(schemas.requestBody("post", SEARCH_PATH), `request body of POST ${SEARCH_PATH}`),
      outputSchema: documented(schemas.response("post", SEARCH_PATH), `answer of POST ${SEARCH_PATH}`),
      method: "POST",
      path: SEARCH_PATH,
      answer: "research",
    },
    {
      name: "contents",
      title: "Read a web page",
      description:
        "Reads one public web page (PDFs too) and returns its main content as markdown, text or HTML, with its title and metadata.",
      inputSchema: documented(schemas.requestBody("post", CONTENTS_PATH), `request body of POST ${CONTENTS_PATH}`),
      method: "POST",
      path: CONTENTS_PATH,
      answer: "page",
    },
    {
      name: "start_task",
      title: "Start research that answers later",
      description:
        "Starts research off the call and returns the task at once (status queued) with its id; read it with get_task. " +
        "Takes the search tool's arguments, or {endpoint: <your endpoint's stub>, inputs: {...}}, or {published: <public stub>, inputs: {...}}, " +
        "with an optional metadata object echoed back. Prefer it to search for long research, or for many questions at once: " +
        "start them all, then read each. Billed once, when it succeeds, as the synchronous call is.",
      inputSchema: documented(schemas.requestBody("post", TASKS_PATH), `request body of POST ${TASKS_PATH}`),
      outputSchema: documented(schemas.response("post", TASKS_PATH, "202"), `answer of POST ${TASKS_PATH}`),
      method: "POST",
      path: TASKS_PATH,
      answer: "task",
    },
    {
      name: "get_task",
      title: "Read a task",
      description:
        "Reads a task start_task began: its status (queued, running, then succeeded, failed or canceled) and, once succeeded, " +
        "its result, exactly what the synchronous call answers ({response, context, info}); a failed task has its error. " +
        "Call it again every few seconds until the status is final.",
      inputSchema: documented(schemas.pathParameters("get", TASK_PATH), `path parameters of GET ${TASK_PATH}`),
      outputSchema: documented(schemas.response("get", TASK_PATH), `answer of GET ${TASK_PATH}`),
      method: "GET",
      path: TASK_PATH,
      answer: "task",
    },
  ];
}

/** MCP tool names: letters, digits, "_", "-" and ".", at most 64 (protocol revision 2025-11-25). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The caller's tools: the built-ins, each of their endpoints' live version
 * under its stub, then each published endpoint they subscribed to, its
 * newest version under its public stub (or `<stub>_published` where that
 * name is taken). A listing whose publisher is suspended is left out: its
 * calls are refused.
 */
export async function callerTools(endpoints: EndpointsContext, schemas: ToolSchemas, accountId: string): Promise<ToolRoute[]> {
  const builtIn = builtIns(schemas);
  const tools = [...builtIn];
  const add = (name: string, tool: Omit<ToolRoute, "name" | "inputSchema" | "outputSchema" | "method" | "answer">, version: Contract) => {
    if (!TOOL_NAME.test(name)) return;
    tools.push({
      ...tool,
      name,
      description: tool.description.slice(0, 1000),
      inputSchema: requestSchema(shownInputs(version.inputs)),
      outputSchema: responseSchema(version.outputFormat as OutputFormat),
      method: "POST",
      answer: "research",
    });
  };
  const lineages = new Map<string, VersionWithStub[]>();
  for (const row of await ownerVersions(endpoints.db, accountId))
    lineages.set(row.endpointId, [...(lineages.get(row.endpointId) ?? []), row]);
  for (const versions of lineages.values()) {
    const live = versions.find((v) => v.version === liveVersion(versions))!;
    // A stub that is also a built-in's name ("search") keeps the built-in's; the endpoint is named apart.
    const name = builtIn.some((t) => t.name === live.stub) ? `${live.stub}_endpoint` : live.stub;
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
