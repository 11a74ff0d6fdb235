/**
 * POSTs an export to an http: collector over one HTTP/1.1 connection of our
 * own (Bun.connect), kept open from one export to the next, one request at a
 * time (the exporter sends one batch at a time). In its place fetch cost a
 * server under load more per export than encoding the batch did: every
 * request traced, two servers on one core each under its own wrk (the
 * refused upgrade), fetch read 1.02-1.06 against this connection (5 runs,
 * mean 1.04), and this connection 0.99-1.02 against not sending at all
 * (mean 1.008). fetch hands each request to its HTTP thread and back, with a
 * Request, Headers, a Response and a timeout signal each time; here an export
 * is two writes (its head, then the batch as encoded). An https: collector goes through
 * fetch: its certificates are fetch's to check.
 *
 * What a collector answers is read as far as HTTP/1.1 needs to find its end
 * (Content-Length, chunked, or the connection's close) and then thrown away,
 * unread past 1 MiB: only its status is kept. An answer that is not HTTP, or a
 * connection closed mid-answer, is an error; a kept connection the collector
 * closed while idle is opened again, once, for the same export.
 */
import type { Socket } from "bun";

/** The status, or a message in our words: a collector's own text never leaves here. */
export class CollectorError extends Error {}

/** An answer's head at most: a collector's is a few hundred bytes. */
const HEAD_MAX = 16 * 1024;
/** An answer's body read at most (an OTLP partial success is a few bytes); past it the connection is dropped. */
const BODY_MAX = 1024 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a header value may hold none of these
const BAD_VALUE = /[\r\n\u0000]/;

/** Whether a header could be sent as it is, as fetch would judge it: a name that is a token, a value that ends no line. */
export const isHttpHeader = (name: string, value: string): boolean => TOKEN.test(name) && !BAD_VALUE.test(value);

const encoder = new TextEncoder();

/** One exchange's state: what is left to write, and how far the answer has been read. */
interface Exchange {
  resolve(status: number): void;
  reject(error: Error): void;
  settled: boolean;
  /** The request's head and body, the one being written, and how many of its bytes the socket has taken. */
  parts: readonly Uint8Array[];
  part: number;
  written: number;
  /** Whether the collector has sent any byte of its answer. */
  answered: boolean;
  /** The head read so far, until its empty line. */
  head: number[];
  status: number;
  /** The body's framing once the head is read: so many bytes, chunked, or until the connection closes. */
  framing: "head" | "length" | "chunked" | "close";
  /** Bytes left of the body (length) or of the chunk being skipped (chunked). */
  left: number;
  /** Chunked: the line being read, and what it is. */
  line: string;
  chunk: "size" | "data" | "end of data" | "trailer";
  bodyRead: number;
  keepAlive: boolean;
}

const NOT_HTTP = "the collector's answer is not HTTP";

export class CollectorConnection {
  private socket: Socket<undefined> | undefined;
  private exchange: Exchange | undefined;
  /** The export in progress: an attempt that outlived its export (a connect that took past the timeout) stops. */
  private export: object | undefined;
  private readonly hostname: string;
  private readonly port: number;
  private readonly head: string;

  /** `url` is the collector's http: URL; `headers` the export's own (content-type, the operator's), sent as given. */
  constructor(url: URL, headers: Record<string, string>) {
    if (url.protocol !== "http:") throw new Error("a collector connection is plain HTTP");
    this.hostname = url.hostname.replace(/^\[|\]$/g, "");
    this.port = Number(url.port || 80);
    let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      // As fetch would refuse them: a name that is not a token, a value that could end the line.
      if (!isHttpHeader(name, value)) throw new CollectorError("an OTLP header is not valid HTTP");
      // Framing is ours to say.
      if (/^(host|content-length|connection|transfer-encoding)$/i.test(name)) continue;
      head += `${name}: ${value}\r\n`;
    }
    this.head = head;
  }

  /** Posts `body` and resolves with the collector's status once its answer has ended. */
  async post(body: Uint8Array | string, timeoutMs: number): Promise<number> {
    if (this.export) throw new Error("one export at a time");
    const token = {};
    this.export = token;
    const payload = typeof body === "string" ? encoder.encode(body) : body;
    const head = encoder.encode(`${this.head}content-length: ${payload.length}\r\n\r\n`);
    // Written as they are, one after the other (no delay: the head never waits for an acknowledgement), rather than
    // copied together into a buffer of their own: some 100 KB allocated and copied an export, for no CPU measured.
    const parts = [head, payload];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.drop();
        reject(new CollectorError("the collector did not answer in time"));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.send(parts, token), timeout]);
    } finally {
      clearTimeout(timer);
      this.export = undefined;
      this.exchange = undefined;
    }
  }

  /** Closes the kept connection, if any. */
  close(): void {
    this.drop();
  }

  private async send(parts: readonly Uint8Array[], token: object): Promise<number> {
    const reused = this.socket !== undefined;
    try {
      try {
        return await this.attempt(parts, token);
      } catch (error) {
        // A kept connection the collector closed while idle: nothing of this export was answered. Once more, anew.
        if (reused && error instanceof StaleConnection) return await this.attempt(parts, token);
        throw error;
      }
    } catch (error) {
      throw error instanceof StaleConnection ? new CollectorError("the collector closed the connection") : error;
    }
  }

  private async attempt(parts: readonly Uint8Array[], token: object): Promise<number> {
    const socket = this.socket ?? (await this.connect(token));
    return new Promise<number>((resolve, reject) => {
      this.exchange = {
        resolve,
        reject,
        settled: false,
        parts,
        part: 0,
        written: 0,
        answered: false,
        head: [],
        status: 0,
        framing: "head",
        left: 0,
        line: "",
        chunk: "size",
        bodyRead: 0,
        keepAlive: true,
      };
      // Held open while an export is out, as a fetch would be; idle, the kept connection never keeps the process up.
      socket.ref();
      this.write(socket);
    });
  }

  private async connect(token: object): Promise<Socket<undefined>> {
    let socket: Socket<undefined>;
    try {
      socket = await Bun.connect({
        hostname: this.hostname,
        port: this.port,
        socket: {
          binaryType: "uint8array",
          data: (socket, data) => this.received(socket, data),
          drain: (socket) => this.write(socket),
          end: (socket) => this.ended(socket),
          close: (socket) => this.ended(socket),
          error: (socket) => this.ended(socket),
          connectError: () => {},
        },
      });
    } catch {
      throw new CollectorError("the collector could not be reached");
    }
    // A connection made after its export gave up (a connect slower than the timeout) is not kept: a later export's is.
    if (this.export !== token) {
      socket.terminate();
      throw new CollectorError("the collector did not answer in time");
    }
    socket.setNoDelay(true);
    this.socket = socket;
    return socket;
  }

  private write(socket: Socket<undefined>): void {
    const exchange = this.exchange;
    if (!exchange || exchange.settled || socket !== this.socket) return;
    for (; exchange.part < exchange.parts.length; exchange.part++, exchange.written = 0) {
      const bytes = exchange.parts[exchange.part]!;
      const n = socket.write(bytes, exchange.written, bytes.length - exchange.written);
      if (n > 0) exchange.written += n;
      // The socket took what it could: the rest when it drains.
      if (exchange.written < bytes.length) return;
    }
  }

  /** The connection closed, or its other end stopped sending: an answer read to the close ends there; any other fails. */
  private ended(socket: Socket<undefined>): void {
    if (socket !== this.socket) return;
    this.drop();
    const exchange = this.exchange;
    if (!exchange || exchange.settled) return;
    if (exchange.framing === "close") this.settle(exchange, exchange.status);
    else
      this.settle(
        exchange,
        exchange.answered ? new CollectorError("the collector closed the connection mid-answer") : new StaleConnection(),
      );
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.terminate();
  }

  private settle(exchange: Exchange, outcome: number | Error): void {
    exchange.settled = true;
    this.socket?.unref();
    // A connection whose answer came before its request was all written, or that said it closes, is not used again.
    if (typeof outcome !== "number" || !exchange.keepAlive || exchange.part < exchange.parts.length) this.drop();
    if (typeof outcome === "number") exchange.resolve(outcome);
    else exchange.reject(outcome);
  }

  private received(socket: Socket<undefined>, data: Uint8Array): void {
    if (socket !== this.socket) return;
    const exchange = this.exchange;
    // Bytes after an answer, or with no request: the connection is no longer one to trust.
    if (!exchange || exchange.settled) return this.drop();
    exchange.answered = true;
    let at = 0;
    while (at < data.length && !exchange.settled) {
      if (exchange.framing === "head") at = this.readHead(exchange, data, at);
      else if (exchange.framing === "chunked") at = this.readChunked(exchange, data, at);
      else {
        const take = exchange.framing === "length" ? Math.min(exchange.left, data.length - at) : data.length - at;
        at += take;
        exchange.bodyRead += take;
        if (exchange.framing === "length" && (exchange.left -= take) === 0) this.settle(exchange, exchange.status);
      }
    }
    if (!exchange.settled && exchange.bodyRead > BODY_MAX) {
      // Its status is known: the rest is not ours to hold, and the connection goes with it.
      exchange.keepAlive = false;
      this.settle(exchange, exchange.status);
    }
  }

  /** Reads the head from `at`, and returns where it stopped: past its empty line, or the end of `data`. */
  private readHead(exchange: Exchange, data: Uint8Array, at: number): number {
    const head = exchange.head;
    while (at < data.length) {
      head.push(data[at++]!);
      const n = head.length;
      if (n >= 4 && head[n - 1] === 10 && head[n - 2] === 13 && head[n - 3] === 10 && head[n - 4] === 13) {
        this.parseHead(exchange);
        return at;
      }
      if (n > HEAD_MAX) {
        this.settle(exchange, new CollectorError(NOT_HTTP));
        return data.length;
      }
    }
    return at;
  }

  /** The status and the body's framing, from a whole head. */
  private parseHead(exchange: Exchange): void {
    const lines = String.fromCharCode(...exchange.head).split("\r\n");
    exchange.head = [];
    const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!status) return this.settle(exchange, new CollectorError(NOT_HTTP));
    const code = Number(status[2]);
    if (code < 100) return this.settle(exchange, new CollectorError(NOT_HTTP));
    // An interim answer (100 Continue, 103 Early Hints): the real one follows.
    if (code < 200) return;
    exchange.status = code;
    exchange.keepAlive = status[1] === "1";
    let length: number | undefined;
    let chunked = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === "content-length") {
        // Two lengths that differ, or one that is not a number, leave the answer's end unknown.
        if (!/^\d{1,15}$/.test(value) || (length !== undefined && length !== Number(value)))
          return this.settle(exchange, new CollectorError(NOT_HTTP));
        length = Number(value);
      } else if (name === "transfer-encoding") chunked = value.split(",").some((coding) => coding.trim() === "chunked");
      else if (name === "connection" && value.includes("close")) exchange.keepAlive = false;
      else if (name === "connection" && value.includes("keep-alive")) exchange.keepAlive = true;
    }
    if (code === 204 || code === 304) length = 0;
    if (chunked) exchange.framing = "chunked";
    else if (length === undefined) {
      exchange.framing = "close";
      exchange.keepAlive = false;
    } else {
      exchange.framing = "length";
      exchange.left = length;
      if (length === 0) this.settle(exchange, code);
    }
  }

  /** Skips a chunked body from `at`, and returns where it stopped: past its last line, or the end of `data`. */
  private readChunked(exchange: Exchange, data: Uint8Array, at: number): number {
    while (at < data.length && !exchange.settled) {
      if (exchange.chunk === "data") {
        const take = Math.min(exchange.left, data.length - at);
        exchange.left -= take;
        exchange.bodyRead += take;
        at += take;
        if (exchange.left === 0) exchange.chunk = "end of data";
        continue;
      }
      const byte = data[at++]!;
      if (byte !== 10) {
        exchange.line += String.fromCharCode(byte);
        if (exchange.line.length > 1024) this.settle(exchange, new CollectorError(NOT_HTTP));
        continue;
      }
      const line = exchange.line.replace(/\r$/, "");
      exchange.line = "";
      if (exchange.chunk === "end of data") {
        if (line !== "") this.settle(exchange, new CollectorError(NOT_HTTP));
        exchange.chunk = "size";
      } else if (exchange.chunk === "size") {
        const size = /^([0-9a-fA-F]{1,8})(?:;.*)?$/.exec(line);
        if (!size) this.settle(exchange, new CollectorError(NOT_HTTP));
        else {
          exchange.left = Number.parseInt(size[1]!, 16);
          exchange.chunk = exchange.left === 0 ? "trailer" : "data";
        }
      } else if (line === "") this.settle(exchange, exchange.status); // the empty line after the last chunk's trailers
    }
    return at;
  }
}

/** A kept connection found closed before any answer: the export may go again on a new one. */
class StaleConnection extends Error {}
