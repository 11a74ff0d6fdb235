/** POST /v1/contents: one page read for the caller. */
import { Elysia } from "elysia";
import { authenticated, type AuthDeps } from "../http/auth.ts";
import { secured } from "../http/openapi.ts";
import type { CallOrigin } from "../caller.ts";
import { ContentsRequest, ContentsResponse, FetchErrorBody } from "./model.ts";
import type { ContentsContext } from "./service.ts";
import { readContents } from "./view.ts";

/** `watch` hears each read with who asked from where (limit-evasion detection); it returns at once and never throws. */
export function contentsRoutes(auth: AuthDeps, contents: ContentsContext, watch: (origin: CallOrigin) => void = () => {}) {
  return new Elysia({ prefix: "/v1" }).use(authenticated(auth)).post(
    "/contents",
    async ({ body, request, call }) => {
      watch(call.origin);
      const view = await readContents(contents, body, request.signal, call.span);
      // A page read is billed for the tokens of what it returns.
      await call.charge({ tokens: view.token_count });
      return view;
    },
    {
      body: ContentsRequest,
      response: { 200: ContentsResponse, 400: FetchErrorBody, 502: FetchErrorBody, 504: FetchErrorBody },
      detail: secured(
        {
          tags: ["Contents"],
          summary: "Read a page: its main content as markdown, text or HTML, with metadata",
          description:
            "Fetches the page through the SSRF guard (public addresses only, at most 5 redirects, size and time limits), extracts the main content (PDFs too), and stores it in the page cache and the local index. A page that cannot be read answers with a stable error code.",
        },
        { billable: true },
      ),
    },
  );
}
