/**
 * The integration guide an agent reads from GET /v1/agent-integration: how
 * to call this service (base URL, auth, routes, streaming, errors, back-off),
 * ready-made commands per client, and links to the OpenAPI document. The
 * route list comes from the running app, so it never drifts from the code.
 */
import { KEY_ENV } from "../accounts/keys.ts";

export interface RouteSummary {
  method: string;
  path: string;
  summary: string;
  authenticated: boolean;
}

export function integrationPrompt(base: string, routes: RouteSummary[]): string {
  const lines = routes.map((r) => `- ${r.method} ${base}${r.path}${r.authenticated ? "" : " (no key)"}: ${r.summary}`);
  const hasSearch = routes.some((r) => r.path === "/v1/search");
  const hasStream = routes.some((r) => r.path === "/v1/ws/search");
  const hasTasks = routes.some((r) => r.path === "/v1/tasks");
  return [
    `You can use an agentic search API at ${base}. It is wire-compatible with Critique Labs' API: a client written for Critique works here by changing the base URL.`,
    "",
    "Authentication: send the API key in the `X-API-Key` header on every call except discovery, health and docs. " +
      `Read it from the environment variable ${KEY_ENV}; never print it, log it, put it in a URL or commit it.`,
    "",
    "Routes:",
    ...lines,
    "",
    hasSearch
      ? 'Searching: POST /v1/search with a JSON body {"prompt": "..."} (optional: "image", "source_whitelist" or "source_blacklist" as lists of domains, "output_format" as a JSON shape of type names). The answer is {"response", "context", "info"}; citation markers [n] in the response refer to context[n-1] (ids start at 1). Quote sources from context, never invent them.'
      : "Searching: the research routes are listed above as they become available.",
    hasStream
      ? "Streaming: open a WebSocket to /v1/ws/search (key in the X-API-Key header, or in Sec-WebSocket-Protocol from a browser), send one JSON message with the same fields as the search body, then read messages {type: context|response|error, content} until the server closes the socket. An error's content ends with its stable code in parentheses, the same code the JSON answer would carry. Or POST /v1/search with `Accept: text/event-stream` for server-sent events."
      : "Streaming: not offered by this deployment yet.",
    ...(hasTasks ? ["", TASKS_GUIDE] : []),
    "",
    'Errors: every error is JSON. Validation failures are 422 with {"detail": [{"loc", "msg", "type"}]} (fix the field named in loc; do not retry unchanged). Other errors are {"detail": "...", "error": "<stable code>"}: 401 bad or missing key (do not retry), 404 not found, 409 conflict, 413 body too large, 429 rate limited, 5xx service trouble.',
    "",
    "Back-off: every authenticated response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds). On 429 wait the Retry-After seconds, then retry; on 502, 503 and 504 retry at most twice with exponential back-off (1 s, then 4 s) and jitter. Keep to one call at a time when X-RateLimit-Remaining is low.",
    "",
    `MCP: agents that speak the Model Context Protocol can add ${base}/mcp (Streamable HTTP) with the header \`Authorization: Bearer <key>\`, the key read from ${KEY_ENV}. Its tools are search, contents, start_task and get_task (tasks, as above: start_task takes the POST /v1/tasks body, get_task takes {"task_id"} and answers the task) and each of the caller's live designed endpoints; listing them is free, each call spends one call of the plan.`,
    "",
    `OpenAI-compatible: OpenAI's SDKs and the frameworks built on them (the Vercel AI SDK's OpenAI-compatible provider, LangChain's ChatOpenAI) can use the base URL ${base}/v1 with the model \`search\` (POST /v1/chat/completions or POST /v1/responses) and the key as their API key (sent as Authorization: Bearer). The answer cites its sources in \`citations\` and \`search_results\`, and as url_citation annotations.`,
    "",
    `The full contract is the OpenAPI document at ${base}/openapi.json.`,
  ].join("\n");
}

/** When a task is the better call than a synchronous search, and how to follow one to its answer. */
const TASKS_GUIDE = [
  'Tasks: POST /v1/tasks with the search body (or {"endpoint": "<stub>", "inputs": {...}}, or {"published": "<public_stub>", "inputs": {...}}) answers 202 at once with a task {"id", "status": "queued"}; the research runs off the request path.',
  "Use a task instead of POST /v1/search when the research is long (a search can take a minute or more and your HTTP client or tool call may time out first), when you have many questions (start them all, then collect each), or when you cannot hold a connection open.",
  'Follow it with GET /v1/tasks/{task_id}/events (server-sent events, resumable with Last-Event-ID), or read GET /v1/tasks/{task_id} every few seconds (each read is a call of your plan) until its status is succeeded, failed or canceled. When succeeded, its "result" is exactly what POST /v1/search would have answered ({response, context, info}); when failed, its "error" has the code the synchronous call would have given.',
  "Send an Idempotency-Key header with the create, so a retried create answers the first task instead of starting a second. POST /v1/tasks/{task_id}/cancel stops one. A task is billed once, when it succeeds, as the synchronous call is.",
].join(" ");

export interface ClientRecipe {
  install: string;
  invoke: string;
}

export function clientRecipes(base: string): Record<string, ClientRecipe> {
  const guideUrl = `${base}/v1/agent-integration`;
  const body = `{"prompt": "What changed in the latest Postgres release?"}`;
  return {
    curl: {
      install: "curl is preinstalled on macOS, Linux and Windows 10+; nothing to install.",
      invoke: `curl -sS ${base}/v1/search -H "X-API-Key: $${KEY_ENV}" -H "Content-Type: application/json" -d '${body}'`,
    },
    python: {
      install: "pip install requests",
      invoke: [
        "import os, requests",
        `r = requests.post("${base}/v1/search", headers={"X-API-Key": os.environ["${KEY_ENV}"]}, json={"prompt": "What changed in the latest Postgres release?"}, timeout=90)`,
        "r.raise_for_status()",
        'print(r.json()["response"])',
      ].join("\n"),
    },
    javascript: {
      install: "Nothing to install: fetch is built into Node.js 18+, Bun, Deno and browsers.",
      invoke: [
        `const r = await fetch("${base}/v1/search", {`,
        '  method: "POST",',
        `  headers: { "X-API-Key": process.env.${KEY_ENV}, "Content-Type": "application/json" },`,
        '  body: JSON.stringify({ prompt: "What changed in the latest Postgres release?" }),',
        "});",
        "if (!r.ok) throw new Error(`search failed: ${r.status} ${await r.text()}`);",
        "console.log((await r.json()).response);",
      ].join("\n"),
    },
    claude_code: {
      install: `curl -sS ${guideUrl} | python3 -c 'import json,sys; print(json.load(sys.stdin)["prompt"])' >> CLAUDE.md`,
      invoke: `claude "Use the agentic search API described in CLAUDE.md (key in $${KEY_ENV}) to research: <your question>"`,
    },
    cursor: {
      install: `mkdir -p .cursor/rules && curl -sS ${guideUrl} | python3 -c 'import json,sys; print(json.load(sys.stdin)["prompt"])' > .cursor/rules/agentic-search.mdc`,
      invoke: "In Cursor's agent chat: \"Use the agentic search rule to research <your question>; the key is in $" + KEY_ENV + '."',
    },
    // MCP clients: the server is added once, then its tools are the agent's own. The key stays in the environment.
    mcp_claude_code: {
      install: `claude mcp add --transport http agentic-search ${base}/mcp --header "Authorization: Bearer $${KEY_ENV}"`,
      invoke: 'claude "Use the agentic-search search tool to research: <your question>"',
    },
    mcp_cursor: {
      install: `mkdir -p .cursor && echo '${JSON.stringify({ mcpServers: { "agentic-search": mcpEntry(base) } })}' > .cursor/mcp.json`,
      invoke: 'In Cursor\'s agent chat: "Use the agentic-search search tool to research <your question>."',
    },
    mcp_vscode: {
      install: `mkdir -p .vscode && echo '${JSON.stringify({ servers: { "agentic-search": { type: "http", ...mcpEntry(base) } } })}' > .vscode/mcp.json`,
      invoke: 'In Copilot\'s agent mode: "#search <your question>"',
    },
    mcp_streamable_http: {
      install: "Any MCP client with the Streamable HTTP transport; nothing else to install.",
      invoke: JSON.stringify({ transport: "streamable-http", url: `${base}/mcp`, headers: { Authorization: `Bearer $${KEY_ENV}` } }),
    },
    // OpenAI-compatible clients: a base URL and the model "search"; the key is their API key.
    openai_typescript: {
      install: "npm install openai",
      invoke: [
        'import OpenAI from "openai";',
        `const client = new OpenAI({ apiKey: process.env.${KEY_ENV}, baseURL: "${base}/v1" });`,
        'const completion = await client.chat.completions.create({ model: "search", messages: [{ role: "user", content: "What changed in the latest Postgres release?" }] });',
        "console.log(completion.choices[0].message.content);",
      ].join("\n"),
    },
    openai_python: {
      install: "pip install openai",
      invoke: [
        "import os",
        "from openai import OpenAI",
        `client = OpenAI(api_key=os.environ["${KEY_ENV}"], base_url="${base}/v1")`,
        'completion = client.chat.completions.create(model="search", messages=[{"role": "user", "content": "What changed in the latest Postgres release?"}])',
        "print(completion.choices[0].message.content)",
      ].join("\n"),
    },
    vercel_ai_sdk: {
      install: "npm install ai @ai-sdk/openai-compatible",
      invoke: [
        'import { createOpenAICompatible } from "@ai-sdk/openai-compatible";',
        'import { generateText } from "ai";',
        `const agentic = createOpenAICompatible({ name: "agentic-search", baseURL: "${base}/v1", apiKey: process.env.${KEY_ENV}, supportsStructuredOutputs: true });`,
        'const { text } = await generateText({ model: agentic("search"), prompt: "What changed in the latest Postgres release?" });',
        "console.log(text);",
      ].join("\n"),
    },
    codex: {
      install: `curl -sS ${guideUrl} | python3 -c 'import json,sys; print(json.load(sys.stdin)["prompt"])' >> AGENTS.md`,
      invoke: `codex "Use the agentic search API described in AGENTS.md (key in $${KEY_ENV}) to research: <your question>"`,
    },
  };
}

/** An mcp.json server entry: the header names the environment variable, never the key. */
function mcpEntry(base: string) {
  return { url: `${base}/mcp`, headers: { Authorization: `Bearer \${env:${KEY_ENV}}` } };
}

/**
 * /llms.txt in the llmstxt.org layout: a title, a one-line summary, then
 * sections of links. The route list is the app's own, as in the guide.
 */
export function llmsText(base: string, routes: RouteSummary[]): string {
  const route = (r: RouteSummary) =>
    `- [${r.method} ${r.path}](${base}${r.path}): ${r.summary || "see the OpenAPI document"}${r.authenticated ? "" : " (no key)"}`;
  return [
    "# Agentic search",
    "",
    "> Searches the web, reads the sources and answers with cited sources, as JSON or as a stream; account owners turn a research task into a typed endpoint. Wire-compatible with Critique Labs' API.",
    "",
    `Send the API key in the X-API-Key header (MCP and OpenAI-compatible clients: Authorization: Bearer), read from the environment variable ${KEY_ENV}; never put it in a URL.`,
    "",
    "## API",
    "",
    ...routes.map(route),
    "",
    "## Agents",
    "",
    `- [MCP, Streamable HTTP](${base}/mcp): tools search, contents, start_task and get_task, and each of your live designed endpoints; listing is free, each call spends one call of your plan`,
    ...(routes.some((r) => r.path === "/v1/tasks")
      ? [
          `- [Tasks](${base}/v1/tasks): for long research or many questions, POST /v1/tasks with the search body answers at once with a task; follow GET /v1/tasks/{task_id}/events, or read GET /v1/tasks/{task_id} every few seconds, until it is succeeded, failed or canceled; a succeeded task's result is the search's own answer`,
        ]
      : []),
    `- [OpenAI-compatible](${base}/v1/chat/completions): OpenAI's SDKs and the frameworks built on them, with the base URL ${base}/v1 and the model \`search\` (also POST /v1/responses)`,
    `- [Integration guide](${base}/v1/agent-integration): instructions an agent can follow as written, and client set-ups`,
    "",
    "## Docs",
    "",
    `- [OpenAPI document](${base}/openapi.json): the whole contract`,
    `- [Reference](${base}/docs)`,
    "",
  ].join("\n");
}

/**
 * /.well-known/mcp: where and how to reach the MCP face, for clients and
 * registries that look for it. The MCP SDK defines no server card yet, so
 * this holds what a client needs to connect and nothing it could not learn
 * from initialize.
 */
export function mcpCard(base: string, version: string, protocolVersion: string) {
  return {
    name: "agentic-search",
    title: "Agentic search",
    version,
    description: "Web search with cited answers, page reading, and your own designed endpoints, as MCP tools.",
    protocol_version: protocolVersion,
    transport: { type: "streamable-http", url: `${base}/mcp` },
    authentication: { type: "bearer", header: "Authorization", env_var: KEY_ENV, also: "X-API-Key" },
    tools: [
      "search",
      "contents",
      "start_task",
      "get_task",
      "one per live designed endpoint of the caller",
      "one per published endpoint the caller subscribed to",
    ],
    documentation: { llms_txt: `${base}/llms.txt`, integration: `${base}/v1/agent-integration`, openapi: `${base}/openapi.json` },
  };
}
