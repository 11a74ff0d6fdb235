/**
 * Where a call comes from: the one answer the dashboard's sign-in limits and
 * limit-evasion detection (src/abuse/) both use. An explicit header
 * (CLIENT_IP_HEADER) wins; with TRUST_PROXY the first hop of Fly-Client-IP,
 * else of X-Forwarded-For; otherwise the socket's peer. A header is believed
 * only when configured: anyone can send one, so without a proxy that sets it
 * a caller would choose its own address.
 */
import { isIP } from "node:net";

export interface ClientAddressSettings {
  trustProxy: boolean;
  /** A header a trusted proxy sets (lowercase), read before anything else. */
  header: string | undefined;
}

/** Bun's server as Elysia hands it to a route: the socket's peer of a request. */
export type PeerSource = { requestIP(request: Request): { address: string } | null } | null | undefined;

const FORWARDED = ["fly-client-ip", "x-forwarded-for"];

/** The first hop of a header's comma list, when it is an IP address (a port or IPv6 brackets dropped). */
function firstHop(value: string | null): string | null {
  if (!value) return null;
  let hop = value.split(",", 1)[0]!.trim();
  if (hop.length > 64) return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) hop = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(hop)) hop = hop.slice(0, hop.lastIndexOf(":"));
  return isIP(hop) ? normalised(hop) : null;
}

/** IPv4 seen through an IPv6 socket (::ffff:1.2.3.4) is the IPv4 address; IPv6 in lowercase. */
function normalised(address: string): string {
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped ? mapped[1]! : lower;
}

/** The client's address, or null when neither a trusted header nor the socket tells it. */
export function clientAddress(request: Request, server: PeerSource, settings: ClientAddressSettings): string | null {
  if (settings.header) {
    const given = firstHop(request.headers.get(settings.header));
    if (given) return given;
  }
  if (settings.trustProxy) {
    for (const name of FORWARDED) {
      const given = firstHop(request.headers.get(name));
      if (given) return given;
    }
  }
  const peer = server?.requestIP(request)?.address;
  return peer ? normalised(peer) : null;
}
