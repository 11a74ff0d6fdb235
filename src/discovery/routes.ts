import { Elysia, t } from "elysia";
import { API_VERSION } from "../http/openapi.ts";
import { baseUrlOf } from "../http/base-url.ts";
import { KEY_ENV } from "../accounts/keys.ts";
import { clientRecipes, integrationPrompt, llmsText, mcpCard, type RouteSummary } from "./guide.ts";

const Recipe = t.Object({ install: t.String(), invoke: t.String() });

const IntegrationDocument = t.Object({
  name: t.String(),
  version: t.String(),
  base_url: t.String(),
  auth: t.Object({ header: t.String(), env_var: t.String() }),
  prompt: t.String({ description: "Instructions an agent can follow as written." }),
  routes: t.Array(t.Object({ method: t.String(), path: t.String(), summary: t.String(), authenticated: t.Boolean() })),
  clients: t.Record(t.String(), Recipe),
  resources: t.Object({ openapi: t.String(), docs: t.String() }),
});

/** `routes` is read at request time so routes added later are listed too. */
export function discoveryRoutes(publicBaseUrl: string | undefined, routes: () => RouteSummary[]) {
  return (
    new Elysia()
      .get(
        "/llms.txt",
        ({ request }) =>
          new Response(llmsText(baseUrlOf(request, publicBaseUrl), routes()), { headers: { "content-type": "text/plain; charset=utf-8" } }),
        // A file for agents at the root, as llmstxt.org has it; the OpenAPI document describes the /v1 interface.
        { detail: { hide: true } },
      )
      // The SDK is read here, not at start-up (see mcp/routes.ts).
      .get(
        "/.well-known/mcp",
        async ({ request }) => {
          const { LATEST_PROTOCOL_VERSION } = await import("@modelcontextprotocol/sdk/types.js");
          return mcpCard(baseUrlOf(request, publicBaseUrl), API_VERSION, LATEST_PROTOCOL_VERSION);
        },
        {
          detail: { hide: true },
        },
      )
      .get(
        "/v1/agent-integration",
        ({ request }) => {
          const base = baseUrlOf(request, publicBaseUrl);
          const list = routes();
          return {
            name: "agentic-search",
            version: API_VERSION,
            base_url: base,
            auth: { header: "X-API-Key", env_var: KEY_ENV },
            prompt: integrationPrompt(base, list),
            routes: list,
            clients: clientRecipes(base),
            resources: { openapi: `${base}/openapi.json`, docs: `${base}/docs` },
          };
        },
        {
          response: { 200: IntegrationDocument },
          detail: { tags: ["Discovery"], summary: "How an agent should call this service (no key needed)" },
        },
      )
  );
}
