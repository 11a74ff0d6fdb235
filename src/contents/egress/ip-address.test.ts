import { describe, expect, test } from "bun:test";
import { addressRefusal, parseIPv6 } from "./ip-address.ts";

describe("IPv6 parsing", () => {
  test("reads compressed, full and dotted forms", () => {
    expect(parseIPv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("[::ffff:127.0.0.1]")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("2001:db8::8:800:200c:417a")).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
    expect(parseIPv6("64:ff9b::10.0.0.1")).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0x0a00, 1]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
  test("refuses what is not an address", () => {
    for (const bad of ["1::2::3", "fe80::1%eth0", "12345::", "1:2:3:4:5:6:7:8:9", "::ffff:300.0.0.1", "g::1"])
      expect(parseIPv6(bad)).toBeNull();
  });
});

describe("which addresses are public", () => {
  const refused = [
    "0.0.0.0",
    "0.1.2.3",
    "10.1.2.3",
    "100.64.0.1",
    "100.127.255.254",
    "127.0.0.1",
    "127.255.0.2",
    "169.254.169.254",
    "169.254.170.2",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.192",
    "192.0.2.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "168.63.129.16",
    "100.100.100.200",
    "::",
    "::1",
    "::127.0.0.1",
    "::7f00:1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::127.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::1",
    "2002:7f00:1::",
    "2002:c0a8:101::1",
    "2001::1",
    "2001:0:4136:e378::",
    "2001:db8::1",
    "fc00::1",
    "fd00:ec2::254",
    "fe80::1",
    "fec0::1",
    "ff02::1",
    "100::1",
    "3fff::1",
  ];
  const allowed = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2606:4700::1111",
    "2a00:1450:4001::200e",
    "2002:808:808::1",
  ];
  for (const address of refused) test(`refuses ${address}`, () => expect(addressRefusal(address)).not.toBeNull());
  for (const address of allowed) test(`allows ${address}`, () => expect(addressRefusal(address)).toBeNull());
});
