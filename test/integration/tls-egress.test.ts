/**
 * HTTPS through the SSRF guard, for real: a TLS server on loopback with a
 * certificate for `localhost` (trusted through NODE_EXTRA_CA_CERTS by the
 * server process). The guard dials the checked address and verifies the
 * certificate against the name: an https image URL is fetched, a page is
 * read, and the same server reached under a name its certificate does not
 * carry is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonOf } from "../helpers/app.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { article } from "../helpers/peers/pages.ts";
import { runCli, startServer, type ServerProcess } from "../helpers/process.ts";

const openssl = Bun.which("openssl");
const dir = mkdtempSync(join(tmpdir(), "as-tls-"));
let tls: ReturnType<typeof Bun.serve> | undefined;
let server: ServerProcess | undefined;
let key = "";

beforeAll(async () => {
  if (!openssl) return;
  const made = Bun.spawnSync(
    [
      openssl,
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${dir}/key.pem`,
      "-out",
      `${dir}/cert.pem`,
      "-days",
      "2",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost",
    ],
    { stderr: "ignore" },
  );
  if (made.exitCode !== 0) throw new Error("openssl could not make a certificate");
  tls = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert: Bun.file(`${dir}/cert.pem`), key: Bun.file(`${dir}/key.pem`) },
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/photo.png") return new Response(minimalPng(), { headers: { "content-type": "image/png" } });
      if (path === "/not-an-image.png") return new Response("<html>nope</html>", { headers: { "content-type": "text/html" } });
      return new Response(article("Secure page", ["This page was served over TLS to a pinned address."]), {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    },
  });
  const env = {
    DATA_DIR: dir,
    NODE_EXTRA_CA_CERTS: `${dir}/cert.pem`,
    FETCH_ALLOW_HOSTS: `localhost:${tls.port},127.0.0.1:${tls.port}`,
    SEARCH_PROVIDERS: "local",
  };
  key = JSON.parse((await runCli(["accounts", "create", "--name", "tls", "--limit", "5000", "--json"], env)).stdout).api_key;
  server = await startServer(env);
});
afterAll(async () => {
  await server?.stop();
  tls?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { "X-API-Key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe.skipIf(!openssl)("https through the SSRF guard", () => {
  test("an https image URL is fetched, checked, and reported as not analysed without a vision model", async () => {
    const response = await post("/v1/search", {
      prompt: "What is in this picture?",
      image: `https://localhost:${tls!.port}/photo.png?size=large`,
    });
    expect(response.status).toBe(200);
    const body = await jsonOf(response);
    expect(body.info.image_analysed).toBe(false);
    expect(body.info.image_note).toContain("not analysed");
  });

  test("an https image URL that does not answer with an image is a 422", async () => {
    const response = await post("/v1/search", { prompt: "What is this?", image: `https://localhost:${tls!.port}/not-an-image.png` });
    expect(response.status).toBe(422);
    expect((await jsonOf(response)).detail[0].loc).toEqual(["body", "image"]);
  });

  test("a page is read over TLS from the checked address", async () => {
    const body = await jsonOf(post("/v1/contents", { url: `https://localhost:${tls!.port}/page.html` }));
    expect(body.title).toBe("Secure page");
    expect(body.content).toContain("served over TLS to a pinned address");
  });

  test("the certificate is verified against the name: the same server under another name is refused", async () => {
    const response = await post("/v1/contents", { url: `https://127.0.0.1:${tls!.port}/page.html` });
    expect(response.status).toBe(502);
    expect((await jsonOf(response)).error).toBe("fetch_failed");
  });
});
