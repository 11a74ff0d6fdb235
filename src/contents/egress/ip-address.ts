/**
 * Is an address one the service may connect to on a caller's behalf? IPv4 is
 * checked against the special-purpose ranges; IPv6 must be global unicast
 * (2000::/3) outside its special blocks, and the forms that carry an IPv4
 * address (mapped, NAT64, 6to4) are unwrapped and judged as that address.
 * Everything else (loopback, ::/96 compatible, unique-local, link-local,
 * multicast, Teredo, documentation...) is refused.
 */

export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

/** Eight 16-bit groups, or null. Accepts `::` compression and a dotted IPv4 tail; rejects zone ids. */
export function parseIPv6(text: string): number[] | null {
  let input = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (input.includes("%")) return null;
  let tail: number[] = [];
  const lastColon = input.lastIndexOf(":");
  if (input.includes(".", lastColon)) {
    const v4 = parseIPv4(input.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    input = `${input.slice(0, lastColon + 1)}0`; // placeholder group, replaced below
  }
  const halves = input.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : Number.NaN));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (tail.length) (halves.length === 2 ? rest : head).pop();
  const groups =
    halves.length === 2
      ? [...head, ...new Array(8 - head.length - rest.length - tail.length).fill(0), ...rest, ...tail]
      : [...head, ...tail];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  if (halves.length === 2 && head.length + rest.length + tail.length > 7) return null;
  return groups;
}

const v4 = (a: number, b: number, c: number, d: number) => ((a * 256 + b) * 256 + c) * 256 + d;

// [first address, prefix length, why]
const BLOCKED_V4: [number, number, string][] = [
  [v4(0, 0, 0, 0), 8, "this network"],
  [v4(10, 0, 0, 0), 8, "private"],
  [v4(100, 64, 0, 0), 10, "carrier-grade NAT"],
  [v4(127, 0, 0, 0), 8, "loopback"],
  [v4(169, 254, 0, 0), 16, "link-local and cloud metadata"],
  [v4(172, 16, 0, 0), 12, "private"],
  [v4(192, 0, 0, 0), 24, "IETF protocol assignments"],
  [v4(192, 0, 2, 0), 24, "documentation"],
  [v4(192, 88, 99, 0), 24, "6to4 relay"],
  [v4(192, 168, 0, 0), 16, "private"],
  [v4(198, 18, 0, 0), 15, "benchmarking"],
  [v4(198, 51, 100, 0), 24, "documentation"],
  [v4(203, 0, 113, 0), 24, "documentation"],
  [v4(224, 0, 0, 0), 4, "multicast"],
  [v4(240, 0, 0, 0), 4, "reserved and broadcast"],
  [v4(168, 63, 129, 16), 32, "Azure host metadata"],
];

function inV4(address: number, [first, prefix]: [number, number, string]): boolean {
  const size = 2 ** (32 - prefix);
  return address >= first && address < first + size;
}

export function ipv4Refusal(address: number): string | null {
  const hit = BLOCKED_V4.find((range) => inV4(address, range));
  return hit ? hit[2] : null;
}

function embeddedV4(hi: number, lo: number): number {
  return hi * 65536 + lo;
}

export function ipv6Refusal(g: number[]): string | null {
  const [a, b, c, d, e, f, g6, h] = g as [number, number, number, number, number, number, number, number];
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (well-known NAT64) reach the embedded IPv4 address.
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff) return ipv4Refusal(embeddedV4(g6, h));
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return ipv4Refusal(embeddedV4(g6, h));
  if ((a & 0xe000) !== 0x2000)
    return "not global unicast (loopback, unspecified, IPv4-compatible, unique-local, link-local, multicast or reserved)";
  if (a === 0x2002) return ipv4Refusal(embeddedV4(b, c)) ?? null; // 6to4 carries the relay's IPv4 address
  if (a === 0x2001 && b < 0x0200) return "IETF protocol assignments (Teredo, benchmarking, ORCHID)";
  if (a === 0x2001 && b === 0x0db8) return "documentation";
  if (a === 0x3fff && b < 0x1000) return "documentation";
  return null;
}

/** Why the address may not be reached, or null when it is public. Unparsable text is refused. */
export function addressRefusal(address: string): string | null {
  const four = parseIPv4(address);
  if (four !== null) return ipv4Refusal(four);
  const six = parseIPv6(address);
  if (six !== null) return ipv6Refusal(six);
  return "not an IP address";
}

export function isIpLiteral(host: string): boolean {
  return parseIPv4(host) !== null || parseIPv6(host) !== null;
}
