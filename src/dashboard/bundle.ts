/**
 * The dashboard's page, built by Bun's bundler from its HTML entry point
 * (web/index.html imports the TSX and CSS) on first use and kept in memory:
 * no build step, no files written, and the server starts without paying
 * for it. Served by our own routes so the page gets its security headers.
 */
import { fileURLToPath } from "node:url";
import { ServiceError } from "../errors.ts";

export const ASSET_PREFIX = "/dashboard/assets/";
const ENTRY = fileURLToPath(new URL("./web/index.html", import.meta.url));

export interface DashboardBundle {
  html: string;
  assets: Map<string, { body: Uint8Array<ArrayBuffer>; type: string }>;
}

let built: Promise<DashboardBundle> | undefined;

async function build(): Promise<DashboardBundle> {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    minify: true,
    publicPath: ASSET_PREFIX,
    target: "browser",
    throw: false,
    naming: { asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
  });
  if (!result.success)
    throw new Error(
      `the dashboard did not build: ${result.logs
        .map((l) => l.message)
        .join("; ")
        .slice(0, 500)}`,
    );
  const assets = new Map<string, { body: Uint8Array<ArrayBuffer>; type: string }>();
  let html = "";
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    if (name.endsWith(".html")) html = await output.text();
    else assets.set(name, { body: new Uint8Array(await output.arrayBuffer()), type: output.type });
  }
  return { html, assets };
}

export function dashboardBundle(): Promise<DashboardBundle> {
  built ??= build().catch((error: unknown) => {
    built = undefined;
    // The bundler's words (file paths, source lines) go to the log with the request's id, not to the caller.
    throw new ServiceError("service_unavailable", "the dashboard is not available right now", { cause: error });
  });
  return built;
}

/** Headers of every dashboard response: nothing loads from elsewhere, nothing frames it. */
export const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};
