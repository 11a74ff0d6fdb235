import { afterAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { CollectorConnection, CollectorError } from "./collector-connection.ts";
import { OtlpExporter, otlpTarget } from "./otlp-exporter.ts";
import { recordingSpans, type SpanRecord } from "./spans.ts";
import { samplerFrom } from "./sampler.ts";

/** A request as a peer received it: its head's lines and its body. */
interface Received {
  connection: number;
  lines: string[];
  body: Uint8Array;
}

/**
 * A collector on a raw TCP socket, answering each whole request with whatever `answer` writes: as a real collector
 * does, or in the odd ways HTTP/1.1 allows (byte by byte, chunked, closed), or not at all.
 */
function peer(answer: (socket: Socket<{ id: number; buffer: number[] }>, request: Received, index: number) => void) {
  const received: Received[] = [];
  let connections = 0;
  const server = Bun.listen<{ id: number; buffer: number[] }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { id: ++connections, buffer: [] };
      },
      data(socket, data) {
        const state = socket.data;
        for (const byte of data) state.buffer.push(byte);
        for (;;) {
          const bytes = Uint8Array.from(state.buffer);
          const end = Buffer.from(bytes).indexOf("\r\n\r\n");
          if (end < 0) return;
          const lines = new TextDecoder().decode(bytes.subarray(0, end)).split("\r\n");
          const length = Number(lines.find((line) => /^content-length:/i.test(line))?.split(":")[1] ?? 0);
          if (bytes.length < end + 4 + length) return;
          state.buffer = state.buffer.slice(end + 4 + length);
          const request = { connection: state.id, lines, body: bytes.slice(end + 4, end + 4 + length) };
          received.push(request);
          answer(socket, request, received.length - 1);
        }
      },
    },
  });
  return {
    url: new URL(`http://127.0.0.1:${server.port}/v1/traces`),
    received,
    connections: () => connections,
    stop: () => server.stop(true),
  };
}

const OK = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
const peers: { stop(): void }[] = [];
afterAll(() => {
  for (const p of peers) p.stop();
});
function started<T extends { stop(): void }>(p: T): T {
  peers.push(p);
  return p;
}

describe("a collector connection", () => {
  test("posts the request as HTTP/1.1 says, with its headers and body, and keeps the connection for the next", async () => {
    const collector = started(peer((socket) => socket.write(OK)));
    const connection = new CollectorConnection(collector.url, { "content-type": "application/x-protobuf", "x-team": "search" });
    const body = Uint8Array.from({ length: 300_000 }, (_, i) => i % 251);
    expect(await connection.post(body, 5_000)).toBe(200);
    expect(await connection.post("second", 5_000)).toBe(200);
    connection.close();
    expect(collector.connections()).toBe(1);
    const [first, second] = collector.received;
    expect(first!.lines[0]).toBe("POST /v1/traces HTTP/1.1");
    expect(first!.lines).toContain(`host: ${collector.url.host}`);
    expect(first!.lines).toContain("content-type: application/x-protobuf");
    expect(first!.lines).toContain("x-team: search");
    expect(first!.lines).toContain("content-length: 300000");
    expect(Buffer.from(first!.body).equals(Buffer.from(body))).toBe(true);
    expect(new TextDecoder().decode(second!.body)).toBe("second");
  });

  test("a body of megabytes goes whole, however the socket takes it", async () => {
    const collector = started(peer((socket) => socket.write(OK)));
    const connection = new CollectorConnection(collector.url, {});
    const body = Uint8Array.from({ length: 8 * 1024 * 1024 }, (_, i) => (i * 7) % 256);
    expect(await connection.post(body, 10_000)).toBe(200);
    connection.close();
    expect(Buffer.from(collector.received[0]!.body).equals(Buffer.from(body))).toBe(true);
  });

  test("an answer in pieces: byte by byte, chunked with trailers, after an interim 100; each ends where HTTP says", async () => {
    const answers = [
      "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello",
      "HTTP/1.1 202 Accepted\r\ntransfer-encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nx-trailer: 1\r\n\r\n",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok",
    ];
    const collector = started(
      peer(async (socket, _request, index) => {
        for (const byte of new TextEncoder().encode(answers[index]!)) {
          socket.write(Uint8Array.of(byte));
          socket.flush();
          await Bun.sleep(0);
        }
      }),
    );
    const connection = new CollectorConnection(collector.url, {});
    expect(await connection.post("a", 5_000)).toBe(200);
    expect(await connection.post("b", 5_000)).toBe(202);
    expect(await connection.post("c", 5_000)).toBe(201);
    connection.close();
    // Each answer ended exactly where it said: the same connection carried all three.
    expect(collector.connections()).toBe(1);
  });

  test("an answer read to the close, or one that says it closes, leaves the next export a new connection", async () => {
    const collector = started(
      peer((socket, _request, index) => {
        if (index === 0) socket.end("HTTP/1.0 200 OK\r\n\r\nsome body");
        else socket.write("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      }),
    );
    const connection = new CollectorConnection(collector.url, {});
    expect(await connection.post("a", 5_000)).toBe(200);
    expect(await connection.post("b", 5_000)).toBe(200);
    expect(await connection.post("c", 5_000)).toBe(200);
    connection.close();
    expect(collector.received.map((r) => r.connection)).toEqual([1, 2, 3]);
  });

  test("a kept connection the collector closed while idle is opened again for the same export, once", async () => {
    const collector = started(
      peer((socket) => {
        socket.write(OK);
        // A collector's idle timeout, at once.
        setTimeout(() => socket.end(), 10);
      }),
    );
    const connection = new CollectorConnection(collector.url, {});
    expect(await connection.post("a", 5_000)).toBe(200);
    await Bun.sleep(50);
    expect(await connection.post("b", 5_000)).toBe(200);
    connection.close();
    expect(collector.received.map((r) => new TextDecoder().decode(r.body))).toEqual(["a", "b"]);
  });

  test("a kept connection closed as an export arrives, before any answer: the export goes again on a new one, once", async () => {
    const collector = started(
      peer((socket, request, index) => {
        const body = new TextDecoder().decode(request.body);
        // "b" finds its kept connection closing; "c" finds every connection closing, the new one too.
        if (body === "c" || (index === 1 && request.connection === 1)) socket.end();
        else socket.write(OK);
      }),
    );
    const connection = new CollectorConnection(collector.url, {});
    expect(await connection.post("a", 5_000)).toBe(200);
    expect(await connection.post("b", 5_000)).toBe(200);
    expect(collector.received.map((r) => [r.connection, new TextDecoder().decode(r.body)])).toEqual([
      [1, "a"],
      [1, "b"],
      [2, "b"],
    ]);
    const error = await connection.post("c", 5_000).catch((e) => e);
    expect(error.message).toBe("the collector closed the connection");
    // Sent on the kept connection, then once more on a new one: never a third time.
    expect(collector.received.filter((r) => new TextDecoder().decode(r.body) === "c").map((r) => r.connection)).toEqual([2, 3]);
    connection.close();
  });

  test("a collector that closes without answering, answers what is not HTTP, or says two lengths, fails in our words", async () => {
    const behaviours: ((socket: Socket<{ id: number; buffer: number[] }>) => void)[] = [
      (socket) => socket.end(),
      (socket) => socket.write("SSH-2.0-OpenSSH_9.6\r\n\r\n"),
      (socket) => socket.write("HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabc"),
      (socket) => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc"),
      (socket) => socket.write(`HTTP/1.1 200 OK\r\nx-long: ${"a".repeat(20_000)}\r\n\r\n`),
      (socket) => socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"),
    ];
    const messages: string[] = [];
    for (const behaviour of behaviours) {
      const collector = started(peer(behaviour));
      const connection = new CollectorConnection(collector.url, {});
      const error = await connection.post("a", 5_000).catch((e) => e);
      connection.close();
      expect(error).toBeInstanceOf(CollectorError);
      messages.push(error.message);
    }
    expect(messages).toEqual([
      "the collector closed the connection",
      "the collector's answer is not HTTP",
      "the collector's answer is not HTTP",
      "the collector closed the connection mid-answer",
      "the collector's answer is not HTTP",
      "the collector's answer is not HTTP",
    ]);
  });

  test("a collector that never answers times out, and the next export has a connection of its own", async () => {
    let silent = true;
    const collector = started(
      peer((socket) => {
        if (!silent) socket.write(OK);
      }),
    );
    const connection = new CollectorConnection(collector.url, {});
    const started_ = performance.now();
    const error = await connection.post("a", 150).catch((e) => e);
    expect(error).toBeInstanceOf(CollectorError);
    expect(error.message).toBe("the collector did not answer in time");
    expect(performance.now() - started_).toBeLessThan(2_000);
    silent = false;
    expect(await connection.post("b", 5_000)).toBe(200);
    connection.close();
    expect(collector.received.map((r) => r.connection)).toEqual([1, 2]);
  });

  test("a body past 1 MiB is not read: its status is, and the connection goes", async () => {
    const collector = started(
      peer((socket, _request, index) => {
        if (index === 0) socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${3 * 1024 * 1024}\r\n\r\n${"x".repeat(3 * 1024 * 1024)}`);
        else socket.write(OK);
      }),
    );
    const connection = new CollectorConnection(collector.url, {});
    expect(await connection.post("a", 5_000)).toBe(200);
    expect(await connection.post("b", 5_000)).toBe(200);
    connection.close();
    expect(collector.received.map((r) => r.connection)).toEqual([1, 2]);
  });

  test("a collector named by its host name, or by an IPv6 address in brackets, with a query", async () => {
    const v4 = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 200 }) });
    const seen: string[] = [];
    const v6 = Bun.serve({
      hostname: "::1",
      port: 0,
      fetch: (request) => {
        seen.push(new URL(request.url).search);
        return new Response(null, { status: 202 });
      },
    });
    try {
      for (const [url, status] of [
        [`http://localhost:${v4.port}/v1/traces`, 200],
        [`http://[::1]:${v6.port}/v1/traces?tenant=a`, 202],
      ] as const) {
        const connection = new CollectorConnection(new URL(url), {});
        expect(await connection.post("a", 5_000)).toBe(status);
        connection.close();
      }
      expect(seen).toEqual(["?tenant=a"]);
    } finally {
      v4.stop(true);
      v6.stop(true);
    }
  });

  test("nothing listening, or a header that is not HTTP, fails in our words", async () => {
    const closed = new CollectorConnection(new URL("http://127.0.0.1:9/v1/traces"), {});
    expect((await closed.post("a", 2_000).catch((e) => e)).message).toBe("the collector could not be reached");
    expect(() => new CollectorConnection(new URL("http://127.0.0.1:9/"), { "x-a": "b\r\nx-injected: 1" })).toThrow(
      "an OTLP header is not valid HTTP",
    );
    expect(() => new CollectorConnection(new URL("http://127.0.0.1:9/"), { "bad name": "b" })).toThrow("an OTLP header is not valid HTTP");
  });
});

describe("the exporter over it", () => {
  function spans(): SpanRecord[] {
    const finished: SpanRecord[] = [];
    recordingSpans(samplerFrom({}), (span) => finished.push(span))
      .root("export")
      .end();
    return finished;
  }

  test("a collector that never answers loses the batch to the timeout, said in our words; one that answers gets the next", async () => {
    let answering = false;
    const collector = started(
      peer((socket) => {
        if (answering) socket.write(OK);
      }),
    );
    const reasons: string[] = [];
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url.href, OTEL_EXPORTER_OTLP_TIMEOUT: "100" };
    const exporter = new OtlpExporter(otlpTarget(env), { resource: {}, scope: "s" }, (reason) => reasons.push(reason));
    for (const span of spans()) exporter.add(span);
    await exporter.flush();
    answering = true;
    for (const span of spans()) exporter.add(span);
    await exporter.shutdown();
    expect(reasons).toEqual(["the collector did not answer in time"]);
    expect(collector.received).toHaveLength(2);
    expect(collector.received[1]!.lines).toContain("content-type: application/x-protobuf");
  });

  test("a header the operator set that is not HTTP is left out: the spans go with the others", async () => {
    const collector = started(peer((socket) => socket.write(OK)));
    const reasons: string[] = [];
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url.href, OTEL_EXPORTER_OTLP_HEADERS: "bad name=1,x-team=search" };
    const exporter = new OtlpExporter(otlpTarget(env), { resource: {}, scope: "s" }, (reason) => reasons.push(reason));
    for (const span of spans()) exporter.add(span);
    await exporter.shutdown();
    expect(reasons).toEqual([]);
    expect(collector.received).toHaveLength(1);
    expect(collector.received[0]!.lines).toContain("x-team: search");
    expect(collector.received[0]!.lines.some((line) => line.startsWith("bad name"))).toBe(false);
  });
});
