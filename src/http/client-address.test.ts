import { describe, expect, test } from "bun:test";
import { clientAddress } from "./client-address.ts";

const server = (address: string | null) => ({ requestIP: () => (address ? { address } : null) });
const request = (headers: Record<string, string>) => new Request("http://svc.test/v1/search", { headers });
const plain = { trustProxy: false, header: undefined };
const proxied = { trustProxy: true, header: undefined };

describe("the client's address", () => {
  test("without TRUST_PROXY: the socket's peer, whatever headers say", () => {
    expect(clientAddress(request({ "x-forwarded-for": "198.51.100.1" }), server("203.0.113.9"), plain)).toBe("203.0.113.9");
    expect(clientAddress(request({}), server("::ffff:203.0.113.9"), plain)).toBe("203.0.113.9");
    expect(clientAddress(request({}), null, plain)).toBeNull();
  });

  test("with TRUST_PROXY: the first hop of Fly-Client-IP, else of X-Forwarded-For, else the peer", () => {
    const peer = server("10.0.0.2");
    expect(clientAddress(request({ "fly-client-ip": "198.51.100.4", "x-forwarded-for": "198.51.100.1" }), peer, proxied)).toBe(
      "198.51.100.4",
    );
    expect(clientAddress(request({ "x-forwarded-for": "198.51.100.1, 10.0.0.1" }), peer, proxied)).toBe("198.51.100.1");
    expect(clientAddress(request({ "x-forwarded-for": "[2001:DB8::1]:443" }), peer, proxied)).toBe("2001:db8::1");
    expect(clientAddress(request({ "x-forwarded-for": "198.51.100.1:5000" }), peer, proxied)).toBe("198.51.100.1");
    // Not an address: the next source answers.
    expect(clientAddress(request({ "x-forwarded-for": "unknown, 198.51.100.1" }), peer, proxied)).toBe("10.0.0.2");
  });

  test("an explicit CLIENT_IP_HEADER wins over TRUST_PROXY's headers", () => {
    const settings = { trustProxy: true, header: "x-real-ip" };
    expect(clientAddress(request({ "x-real-ip": "192.0.2.5", "x-forwarded-for": "198.51.100.1" }), server("10.0.0.2"), settings)).toBe(
      "192.0.2.5",
    );
    expect(clientAddress(request({ "x-forwarded-for": "198.51.100.1" }), server("10.0.0.2"), settings)).toBe("198.51.100.1");
  });
});
