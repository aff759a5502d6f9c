/**
 * Which addresses a fetch made on a caller's behalf may reach. Over HTTP (`mediagen serve`) the caller
 * does not own this machine's network, so media URLs may only reach public unicast addresses: never
 * loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unique-local,
 * multicast or unspecified ones, whatever spelling the URL used (`http://2130706433/` is 127.0.0.1).
 */
import dns from "node:dns";
import net from "node:net";

function v4Octets(ip: string): number[] | undefined {
  if (!net.isIPv4(ip)) return undefined;
  return ip.split(".").map(Number);
}

function isPublicV4(o: number[]): boolean {
  const [a, b] = o as [number, number, number, number];
  if (a === 0 || a === 10 || a === 127) return false; // this network, private, loopback
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
  if (a === 169 && b === 254) return false; // link-local (cloud metadata)
  if (a === 172 && b >= 16 && b <= 31) return false; // private
  if (a === 192 && b === 168) return false; // private
  if (a === 192 && b === 0 && (o[2] === 0 || o[2] === 2)) return false; // IETF protocol, TEST-NET-1
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  if (a >= 224) return false; // multicast, reserved, broadcast
  return true;
}

/** Expands an IPv6 address to its eight 16-bit groups. */
function v6Groups(ip: string): number[] | undefined {
  if (!net.isIPv6(ip)) return undefined;
  let s = ip.split("%")[0]!;
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (quad) {
    const o = quad[1]!.split(".").map(Number);
    s = s.slice(0, -quad[1]!.length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, tail] = s.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => parseInt(g || "0", 16));
}

function isPublicV6(g: number[]): boolean {
  if (g.every((x) => x === 0)) return false; // unspecified
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return false; // loopback
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible: judge the IPv4 address inside.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return isPublicV4([g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255]);
  }
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  if (first === 0x2001 && g[1] === 0x0db8) return false; // documentation
  if (first === 0x64 && g[1] === 0xff9b) return false; // NAT64: may lead to private IPv4
  return true;
}

/** True for an address a fetch on a caller's behalf may connect to. */
export function isPublicAddress(ip: string): boolean {
  const v4 = v4Octets(ip);
  if (v4) return isPublicV4(v4);
  const v6 = v6Groups(ip);
  return v6 ? isPublicV6(v6) : false;
}

/** Thrown (inside a connection attempt) when an address is refused. */
export class RefusedAddressError extends Error {
  override readonly name = "RefusedAddressError";
  readonly code = "EREFUSEDADDRESS";
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** Which addresses may be connected to. */
export type AddressPolicy = (ip: string) => boolean;

/**
 * A `lookup` for node's http(s) agents that resolves the host and refuses the connection unless every
 * address it resolves to passes `allowed`. The socket connects to the address checked here, so a name
 * that resolves differently a moment later (DNS rebinding) cannot slip through.
 */
export function lookupWithin(allowed: AddressPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0 || list.some((a) => !allowed(a.address))) {
        return callback(new RefusedAddressError(`${hostname} resolves to an address that is not allowed`), []);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/**
 * The addresses a URL's host stands for: itself when it is an IP literal (`[::1]` as `::1`), else
 * every address it resolves to; undefined when it does not resolve.
 */
export async function hostAddresses(url: URL): Promise<string[] | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host)) return [host];
  try {
    return (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return undefined;
  }
}

/**
 * Why a webhook URL may not be delivered to on a remote caller's behalf, or undefined: its host is
 * (in any spelling) or resolves to an address `isPublicAddress` refuses. The same rule as fetches,
 * applied when the request names the URL (a default `serve`; `--allow-private-urls` opens it).
 */
export async function webhookAddressProblem(url: string): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // not a URL: the request's own checks say so
  }
  const addresses = await hostAddresses(parsed);
  // Not resolvable now: delivery attempts will fail and be recorded.
  if (!addresses || addresses.every((a) => isPublicAddress(a))) return undefined;
  return "must be on a public address: this server delivers webhooks to public addresses only (serve --allow-private-urls lets it reach loopback and private ones)";
}
