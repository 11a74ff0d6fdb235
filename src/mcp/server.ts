/**
 * The MCP server of a session: it lists the caller's tools and runs a call
 * by calling the tool's HTTP route in-process with the caller's key. The
 * route does everything it does for an HTTP caller (validation, the plan's
 * rate limit, the 4.1 runtime rules, usage and credit), so the MCP face adds
 * no second way to reach them.
 *
 * A route's refusal of the call itself (400, 404, 422, an upstream failure)
 * is a tool result with isError, which the agent reads and can act on; a
 * refusal of the caller (401, 402, 403, 429) is a JSON-RPC error, as no retry
 * of the same call will do until the caller's standing changes.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { EndpointsContext } from "../endpoints/service.ts";
import { requestMeta, type RequestMeta } from "../http/request-context.ts";
import { callerTools, type ToolSchemas } from "./tools.ts";

/** Calls one of the app's own routes: buildApp hands in its `handle`. */
export type Dispatch = (request: Request) => Promise<Response>;

export interface McpDeps {
  endpoints: EndpointsContext;
  dispatch: Dispatch;
  version: string;
  /** Where the tools' schemas are read: the app's OpenAPI document. */
  schemas: ToolSchemas;
}

/** The SDK's request schemas as this file uses them (zod objects; no zod of our own is imported). */
interface RequestSchema {
  pick(mask: { method: true }): { loose(): RequestSchema };
  safeParse(
    data: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

/**
 * A Server that answers a request whose params have the wrong types (a
 * tool name that is not a string, no params, arguments that are not an
 * object, an initialize without its client) with -32602 invalid params, as
 * JSON-RPC prescribes. The SDK parses a request with its method's schema
 * before the handler runs and reports a failure as -32603 internal error;
 * here every handler, the SDK's own initialize and ping included, is
 * registered with a schema that reads the method alone and passes the rest
 * through, and the method's schema is applied inside, where a failure is
 * the caller's.
 */
class StrictParamsServer extends Server {
  override setRequestHandler(...[schema, handler]: Parameters<Server["setRequestHandler"]>): void {
    const strict = schema as unknown as RequestSchema;
    const lax = strict.pick({ method: true }).loose() as unknown as typeof schema;
    super.setRequestHandler(lax, (request, extra) => {
      const parsed = strict.safeParse(request);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join(".") || "params"}: ${issue.message}`);
        throw new McpError(ErrorCode.InvalidParams, `invalid params: ${issues.join("; ")}`);
      }
      return handler(parsed.data as Parameters<typeof handler>[0], extra);
    });
  }
}

/** JSON-RPC's implementation-defined server errors; -32001 is the SDK's timeout. */
const REFUSED = -32002;
/** Statuses that refuse the caller, not the call. */
const CALLER_REFUSED = new Set([401, 402, 403, 429]);
/** The internal base of the routes a tool calls; never leaves the process. */
const INTERNAL = "http://mcp.internal";

/**
 * The server of one session of the account. Each request brings its own key
 * (as authInfo): a tool call is made with the key that made it.
 */
export function mcpServer(deps: McpDeps, accountId: string): Server {
  const server = new StrictParamsServer(
    { name: "agentic-search", title: "Agentic search", version: deps.version },
    {
      // Releases, deletions and subscriptions are announced to the session (sessions.ts).
      capabilities: { tools: { listChanged: true } },
      instructions:
        "search answers a prompt from the web with cited sources; contents reads one page; start_task starts a search or an endpoint's call that answers later (for long research, or many at once) and get_task reads it; every other tool is one of your designed endpoints or a published endpoint you subscribed to.",
    },
  );
  // Read afresh on every request: a session outlives releases, deletions and subscriptions.
  const listed = () => callerTools(deps.endpoints, deps.schemas, accountId);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await listed()).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: "object" },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: "object" } } : {}),
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = (await listed()).find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
    const key = extra.authInfo?.token;
    if (!key) throw new McpError(REFUSED, "missing or invalid API key", { status: 401, error: "unauthorized" });
    const args = request.params.arguments ?? {};
    const path = filledPath(tool.path, args);
    if (typeof path !== "string") return { isError: true, content: [{ type: "text", text: path.problem }] };
    const traceparent = extra.authInfo?.extra?.traceparent;
    const call = new Request(`${INTERNAL}${path}`, {
      method: tool.method,
      headers: {
        "x-api-key": key,
        ...(typeof traceparent === "string" ? { traceparent } : {}),
        accept: "application/json",
        ...(tool.method === "POST" ? { "content-type": "application/json" } : {}),
      },
      ...(tool.method === "POST" ? { body: JSON.stringify(args) } : {}),
      signal: extra.signal,
    });
    // The route sees the client's address as an HTTP caller's would be seen, for abuse detection: this request has no socket.
    requestMeta(call).clientAddress = (extra.authInfo?.extra?.clientAddress as string | null | undefined) ?? null;
    const token = request.params._meta?.progressToken;
    if (token !== undefined && tool.name === "search") requestMeta(call).hear = progressOf(token, extra.sendNotification);
    const response = await deps.dispatch(call);
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (CALLER_REFUSED.has(response.status)) {
      const retryAfter = Number(response.headers.get("retry-after")) || undefined;
      throw new McpError(REFUSED, refusal(response.status, body), {
        status: response.status,
        error: body?.error ?? null,
        ...(retryAfter ? { retry_after_seconds: retryAfter } : {}),
      });
    }
    // A task is accepted with 202 (200 when an Idempotency-Key found it); every other route answers 200.
    if ((response.status !== 200 && response.status !== 202) || body === null)
      return { isError: true, content: [{ type: "text", text: refusal(response.status, body) }] };
    if (tool.answer === "task") return taskResult(body);
    return tool.answer === "page" ? pageResult(body) : researchResult(body);
  });
  return server;
}

/**
 * The route's path with each `{name}` filled from the argument of that name,
 * or what is wrong with the arguments. Checked here because the route cannot
 * say it: a missing id would reach another route (`/v1/tasks/` is the list),
 * and "." or ".." would be resolved away by the URL, encoded or not.
 */
function filledPath(template: string, args: Record<string, unknown>): string | { problem: string } {
  let problem: string | undefined;
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = args[name];
    if (typeof value !== "string" || value === "" || value === "." || value === "..")
      problem ??= `${name}: required, a non-empty string (validation_failed)`;
    return encodeURIComponent(String(value));
  });
  return problem === undefined ? path : { problem };
}

type Notify = (notification: ServerNotification) => Promise<void>;

/**
 * Progress of a search as notifications/progress, in order: the run has its
 * slot and is searching, the pages are read (how many sources), the answer
 * is being written. Planning happens before the first and says nothing.
 */
function progressOf(token: string | number, notify: Notify): NonNullable<RequestMeta["hear"]> {
  const TOTAL = 3;
  let answering = false;
  const send = (progress: number, message: string) => {
    // A client that went away cannot be told; the run goes on to its answer or its own end.
    notify({ method: "notifications/progress", params: { progressToken: token, progress, total: TOTAL, message } }).catch(() => {});
  };
  return (event) => {
    if (event.type === "started") send(1, "searching the web");
    else if (event.type === "context") send(2, `read ${Array.isArray(event.content) ? event.content.length : 0} sources`);
    else if (!answering) {
      answering = true;
      send(3, "answering");
    }
  };
}

/** The route's own words for a refusal: its detail (a string, or FastAPI's list of issues) and its code. */
function refusal(status: number, body: Record<string, unknown> | null): string {
  const detail = body?.detail;
  const text =
    typeof detail === "string"
      ? detail
      : Array.isArray(detail)
        ? detail.map((d) => `${(d as { loc?: unknown[] }).loc?.join(".") ?? ""}: ${(d as { msg?: string }).msg ?? ""}`).join("; ")
        : `status ${status}`;
  return body?.error ? `${text} (${String(body.error)})` : text;
}

/** The answer as text, its sources listed under it by [n], and the whole {response, context, info} as structured content. */
function researchResult(body: Record<string, unknown>): CallToolResult {
  const answer = typeof body.response === "string" ? body.response : JSON.stringify(body.response, null, 2);
  const context = (body.context ?? []) as { id: number; metadata: { title: string; url: string } }[];
  const sources = context.map((c) => `[${c.id}] ${c.metadata.title} ${c.metadata.url}`).join("\n");
  return {
    content: [{ type: "text", text: sources ? `${answer}\n\nSources:\n${sources}` : answer }],
    structuredContent: body,
  };
}

/**
 * A task: a line that says where it stands and what to do next, then, once it
 * succeeded, its answer as search shows one (or its error), and the whole task
 * as structured content.
 */
function taskResult(task: Record<string, unknown>): CallToolResult {
  const status = String(task.status);
  const head =
    status === "queued" || status === "running"
      ? `Task ${String(task.id)} is ${status}: call get_task with task_id "${String(task.id)}" every few seconds until it has finished.`
      : `Task ${String(task.id)} ${status}.`;
  const error = task.error as { code: string; message: string } | null;
  const more =
    status === "succeeded" && task.result
      ? textOf(researchResult(task.result as Record<string, unknown>))
      : error
        ? `${error.message} (${error.code})`
        : "";
  return { content: [{ type: "text", text: more ? `${head}\n\n${more}` : head }], structuredContent: task };
}

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

function pageResult(body: Record<string, unknown>): CallToolResult {
  const { content, ...rest } = body;
  return {
    content: [
      { type: "text", text: String(content ?? "") },
      { type: "text", text: JSON.stringify(rest) },
    ],
  };
}
