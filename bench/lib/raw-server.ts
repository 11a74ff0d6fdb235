/**
 * The ceiling for bench/http.ts: Bun.serve answering a small JSON object,
 * with nothing of ours in the way. Prints its port.
 */
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ status: "ok" }) });
console.log(server.port);
