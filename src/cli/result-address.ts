/**
 * Where a result link from a hosted service may point. A public service has no business sending
 * this machine to its own loopback or private network (a hostile one could make the CLI save what a
 * local admin page or a cloud metadata address answers), so when the base URL is public, a result
 * URL must resolve to public addresses only — checked on the address the socket then connects to,
 * and again on every redirect. A service that is itself on a private address (`mediagen serve` on
 * this machine or the LAN) may hand out links there.
 */
import dns from "node:dns";
import net from "node:net";

const PRIVATE = new net.BlockList();
for (const [a, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["127.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const)
  PRIVATE.addSubnet(a, bits, "ipv4");
for (const [a, bits] of [
  ["::", 128],
  ["::1", 128],
  // IPv4-compatible (deprecated; ::ffff:a.b.c.d, IPv4-mapped, is checked against the IPv4 list).
  ["::", 96],
  ["100::", 64],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
  ["2001:db8::", 32],
] as const) {
  PRIVATE.addSubnet(a, bits, "ipv6");
}

/** Loopback, private, link-local, carrier-grade NAT, multicast, reserved or unspecified. */
export function isPrivateAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return true;
  if (family === 6 && /^2002:/i.test(ip)) {
    // 6to4: the IPv4 address is bits 16-48, and the relay would deliver to it.
    const [, a = "0", b = "0"] = expandIpv6(ip);
    const v4 = [parseInt(a, 16) >> 8, parseInt(a, 16) & 255, parseInt(b, 16) >> 8, parseInt(b, 16) & 255].join(".");
    if (PRIVATE.check(v4, "ipv4")) return true;
  }
  return PRIVATE.check(ip, family === 4 ? "ipv4" : "ipv6");
}

/** The eight groups of an IPv6 address (no embedded IPv4 form). */
function expandIpv6(ip: string): string[] {
  const [head = "", tail] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  return [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t];
}

/** Whether `host` (a name) resolves to any private address here; a name that does not resolve: false. */
export async function resolvesPrivate(host: string): Promise<boolean> {
  try {
    const all = await dns.promises.lookup(host, { all: true });
    return all.some((a) => isPrivateAddress(a.address));
  } catch {
    return false;
  }
}

/** Whether the service at `baseUrl` is on a private address itself (by its literal host or its name's addresses). */
export async function isPrivateService(baseUrl: string): Promise<boolean> {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (net.isIP(host)) return isPrivateAddress(host);
  try {
    const all = await dns.promises.lookup(host, { all: true });
    return all.some((a) => isPrivateAddress(a.address));
  } catch {
    return false;
  }
}

/** Thrown from the connection's lookup when a result URL leads to a refused address. */
export class PrivateResultAddressError extends Error {
  readonly code = "EPRIVATEADDRESS";
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for the download's sockets: every address the name resolves to must be public. */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || list.some((a) => isPrivateAddress(a.address))) {
      return callback(new PrivateResultAddressError(`${hostname} resolves to a private address`), []);
    }
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}
