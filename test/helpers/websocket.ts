/** A real WebSocket client for tests: collects every message and the close, or the refusal of the upgrade. */
export interface SocketRun {
  messages: { type: string; content: unknown }[];
  raw: string[];
  closeCode: number;
  /** The close frame's reason: the run's code ("done" when it finished). */
  closeReason?: string;
  protocol: string;
  /** The upgrade succeeded: false for a refused one (which closes as 1006 without a message). */
  opened?: boolean;
}

export function openSocket(
  url: string,
  options: { headers?: Record<string, string>; protocols?: string[]; send?: string | null; timeoutMs?: number } = {},
): Promise<SocketRun> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: options.headers, protocols: options.protocols } as unknown as string[]);
    const run: SocketRun = { messages: [], raw: [], closeCode: 0, protocol: "", opened: false };
    const timer = setTimeout(
      () => reject(new Error(`socket still open after ${options.timeoutMs ?? 15_000} ms: ${JSON.stringify(run.raw)}`)),
      options.timeoutMs ?? 15_000,
    );
    socket.onopen = () => {
      run.opened = true;
      run.protocol = socket.protocol;
      if (options.send !== null) socket.send(options.send ?? JSON.stringify({ prompt: "test" }));
    };
    socket.onmessage = (event) => {
      const text = String(event.data);
      run.raw.push(text);
      run.messages.push(JSON.parse(text));
    };
    socket.onclose = (event) => {
      clearTimeout(timer);
      run.closeCode = event.code;
      run.closeReason = event.reason;
      resolve(run);
    };
  });
}

/** The answer to a WebSocket upgrade request sent by hand, so a refused upgrade's status and body can be read. */
export async function rawUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  const lines = [
    `GET ${target.pathname}${target.search} HTTP/1.1`,
    `Host: ${target.host}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Version: 13",
    `Sec-WebSocket-Key: ${btoa(crypto.getRandomValues(new Uint8Array(16)).reduce((s, b) => s + String.fromCharCode(b), ""))}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ];
  const text = await new Promise<string>((resolve) => {
    let received = "";
    const done = () => resolve(received);
    void Bun.connect({
      hostname: target.hostname,
      port: Number(target.port),
      socket: {
        open: (s) => void s.write(lines.join("\r\n")),
        data: (s, chunk) => {
          received += new TextDecoder().decode(chunk);
          if (/\r\n\r\n/.test(received) && (received.includes("101 Switching") || /content-length: (\d+)/i.test(received))) {
            const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? 0);
            // Content-Length counts bytes: a body with non-ASCII text (a reason with a dash) is shorter in characters.
            if (received.includes("101 Switching") || Buffer.byteLength(received.split("\r\n\r\n")[1]!) >= length) {
              s.end();
              done();
            }
          }
        },
        close: done,
        error: done,
      },
    });
    setTimeout(done, 3_000);
  });
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.split("\r\n\r\n")[1] ?? "" };
}
