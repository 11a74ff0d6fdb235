/**
 * The SSRF guard refuses every URL below, with no FETCH_ALLOW_HOSTS, before
 * any connection is made: a canary server on loopback (whose port is even
 * in the allowed ports, so the address rules are what stops them) must not
 * receive a single request. DNS answers come from a fake resolver.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { StaticResolver, type Resolver } from "../../src/contents/egress/resolver.ts";
import { SafeFetch, type EgressSettings } from "../../src/contents/egress/safe-fetch.ts";
import { ServiceError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { startCanary } from "../helpers/peers/pages.ts";

const canary = startCanary();
afterAll(() => canary.stop());
const P = canary.port;

const answers: Record<string, string[]> = {
  "private.test": ["10.0.0.5"],
  "loopback.test": ["127.0.0.1"],
  "mixed.test": ["93.184.216.34", "127.0.0.1"],
  "mixed6.test": ["2606:4700::1111", "::1"],
  "metadata.test": ["169.254.169.254"],
  "nat64.test": ["64:ff9b::a9fe:a9fe"],
  "v6only.test": ["::1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "cgnat.test": ["100.100.100.200"],
  "ula.test": ["fd12:3456:789a::1"],
  "zero.test": ["0.0.0.0"],
};

/** Public first, private second: a name that rebinds between a check and a connect. */
class RebindingResolver implements Resolver {
  calls = 0;
  async resolve(hostname: string): Promise<string[]> {
    if (hostname !== "rebind.test") return new StaticResolver(answers).resolve(hostname);
    return this.calls++ === 0 ? ["203.0.114.10"] : ["127.0.0.1"];
  }
}

const settings: EgressSettings = {
  allowHosts: new Set(),
  allowedPorts: new Set([80, 443, P]),
  timeoutMs: 1_500,
  firstByteMs: 1_000,
  maxBytes: 1_000_000,
  maxRedirects: 5,
  maxConcurrency: 16,
  maxPerHost: 4,
  userAgent: "test",
};

const REFUSED = [
  `http://127.0.0.1:${P}/`,
  `http://localhost:${P}/`,
  `http://LOCALHOST.:${P}/`,
  `http://0.0.0.0:${P}/`,
  `http://0:${P}/`,
  `http://[::1]:${P}/`,
  `http://[::]:${P}/`,
  `http://[::ffff:127.0.0.1]:${P}/`,
  `http://[0:0:0:0:0:ffff:127.0.0.1]:${P}/`,
  `http://[::127.0.0.1]:${P}/`,
  `http://[64:ff9b::7f00:1]:${P}/`,
  `http://[2002:7f00:1::]:${P}/`,
  `https://[::1]:${P}/`,
  `http://2130706433:${P}/`,
  `http://0x7f.1:${P}/`,
  `http://0x7f000001:${P}/`,
  `http://017700000001:${P}/`,
  `http://0x7f.0x0.0x0.0x1:${P}/`,
  `http://127.1:${P}/`,
  `http://127.000.000.001:${P}/`,
  `http://127.0.0.2:${P}/`,
  "http://169.254.169.254/latest/meta-data/",
  "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://10.0.0.1/",
  "http://10.255.255.255/",
  "http://172.16.0.1/",
  "http://172.31.255.255/",
  "http://192.168.0.1/",
  "http://100.64.0.1/",
  "http://[fc00::1]/",
  "http://[fd00:ec2::254]/",
  "http://[fe80::1]/",
  "http://224.0.0.1/",
  "http://255.255.255.255/",
  `http://private.test:${P}/`,
  `http://loopback.test:${P}/`,
  `http://mixed.test:${P}/`,
  `http://mixed6.test:${P}/`,
  "http://metadata.test/latest/meta-data/",
  "http://nat64.test/",
  `http://v6only.test:${P}/`,
  `http://mapped.test:${P}/`,
  "http://cgnat.test/",
  "http://ula.test/",
  `http://zero.test:${P}/`,
  "http://intranet/",
  "http://printer.local/",
  `http://api.localhost:${P}/`,
  "http://db.internal/",
  "http://router.home.arpa/",
  "file:///etc/passwd",
  `gopher://127.0.0.1:${P}/_GET`,
  "ftp://example.com/",
  "http://user:pass@example.com/",
  "http://example.com:22/",
];

describe("the SSRF guard, without FETCH_ALLOW_HOSTS", () => {
  const fetcher = new SafeFetch(settings, { resolver: new StaticResolver(answers), log: createLogger({ level: "silent" }) });

  test(`the table has ${REFUSED.length} URLs (at least 40)`, () => expect(REFUSED.length).toBeGreaterThanOrEqual(40));

  for (const raw of REFUSED) {
    test(`refuses ${raw}`, async () => {
      const error = await fetcher.fetch(new URL(raw)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe("fetch_blocked");
      // Opaque: never the resolved address in what the caller sees.
      expect((error as ServiceError).message).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
    });
  }

  test("a rebinding name is resolved once and the checked answer is the one dialled", async () => {
    const resolver = new RebindingResolver();
    const pinned = new SafeFetch({ ...settings, timeoutMs: 800 }, { resolver, log: createLogger({ level: "silent" }) });
    await pinned.fetch(new URL(`http://rebind.test:${P}/`)).catch(() => {});
    expect(resolver.calls).toBe(1);
  });

  test("the canary on loopback received no request at all", () => {
    expect(canary.requests()).toBe(0);
  });
});

describe("FETCH_ALLOW_HOSTS exempts exactly its host:port pairs", () => {
  test("the listed pair is fetched; the same host on another port, or another loopback name, is not", async () => {
    const other = startCanary();
    try {
      const fetcher = new SafeFetch(
        { ...settings, allowHosts: new Set([`127.0.0.1:${other.port}`]), allowedPorts: new Set([80, 443]) },
        { resolver: new StaticResolver(answers), log: createLogger({ level: "silent" }) },
      );
      const ok = await fetcher.fetch(new URL(`http://127.0.0.1:${other.port}/`));
      expect(new TextDecoder().decode(ok.body)).toBe("internal secret");
      for (const raw of [
        `http://127.0.0.1:${P}/`,
        `http://localhost:${other.port}/`,
        `http://[::1]:${other.port}/`,
        `http://loopback.test:${other.port}/`,
      ]) {
        const error = await fetcher.fetch(new URL(raw)).catch((e: unknown) => e);
        expect((error as ServiceError).code).toBe("fetch_blocked");
      }
    } finally {
      other.stop();
    }
    expect(canary.requests()).toBe(0);
  });
});
