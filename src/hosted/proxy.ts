import type { LookupFunction } from "node:net";
import { Agent, ProxyAgent, type Dispatcher } from "undici";

/** True for names and addresses of this machine (the whole 127/8 range, ::1, localhost). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function ipv4ToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

/** One NO_PROXY entry against a host and port, as curl reads them: names cover their subdomains. */
function matchesNoProxy(entry: string, host: string, port: string): boolean {
  let e = entry.toLowerCase();
  const cidr = /^([\d.]+)\/(\d{1,2})$/.exec(e);
  if (cidr) {
    const net = ipv4ToInt(cidr[1]!);
    const ip = ipv4ToInt(host);
    const bits = Number(cidr[2]);
    if (net === undefined || ip === undefined || bits > 32) return false;
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (ip & mask) >>> 0 === (net & mask) >>> 0;
  }
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(e);
  if (withPort) {
    if (withPort[2] !== port) return false;
    e = withPort[1]!;
  }
  e = e.replace(/^\[|\]$/g, "").replace(/^\*?\./, "");
  if (e === "") return false;
  return host === e || host.endsWith(`.${e}`);
}

/** True when NO_PROXY (comma or space separated; `*` for all) says to reach `url` directly. */
export function bypassesProxy(url: URL, noProxy: string): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isLoopbackHost(host)) return true;
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const entries = noProxy.split(/[,\s]+/).filter(Boolean);
  return entries.some((e) => e === "*" || matchesNoProxy(e, host, port));
}

/** Credentials out of a proxy URL meant for a message. */
function withoutCredentials(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, "//[REDACTED]@");
}

/**
 * The proxy for the service at `baseUrl`, chosen by its scheme as curl does: https → HTTPS_PROXY,
 * http → HTTP_PROXY (lower case first); `undefined` when none applies (never a proxy meant for the
 * other scheme), when NO_PROXY covers the host, or for this machine.
 */
export function proxyFor(baseUrl: URL, env: NodeJS.ProcessEnv): URL | undefined {
  const names = baseUrl.protocol === "https:" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy", "HTTP_PROXY"];
  const name = names.find((n) => env[n] !== undefined);
  const raw = name ? env[name]!.trim() : "";
  if (!raw) return undefined;
  if (bypassesProxy(baseUrl, env.no_proxy ?? env.NO_PROXY ?? "")) return undefined;
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new TypeError(`Invalid proxy URL in ${name}: ${withoutCredentials(raw)}`);
  }
  if (proxy.protocol !== "http:" && proxy.protocol !== "https:") {
    throw new TypeError(`Unsupported proxy scheme in ${name}: ${proxy.protocol} (use http:// or https://)`);
  }
  return proxy;
}

export interface DispatcherOptions {
  baseUrl: URL;
  env: NodeJS.ProcessEnv;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Extra trust for the service's certificate (a private CA); also applied inside proxy tunnels. */
  ca?: string | Buffer;
  /** Name resolution for every connection, the proxy's too (tests map names to 127.0.0.1 without DNS). */
  lookup?: LookupFunction;
}

/**
 * One dispatcher (connection pool) for the engine's life. The engine talks to one origin, so the
 * proxy question is settled once here: a tunnel through the proxy for the base URL's scheme, or a
 * direct pool. The connect timeout bounds the hop to the proxy and the TLS handshake through it.
 */
export function createDispatcher(o: DispatcherOptions): { dispatcher: Dispatcher; proxied: boolean } {
  const common = {
    headersTimeout: o.headersTimeoutMs,
    bodyTimeout: o.bodyTimeoutMs,
    keepAliveTimeout: 4_000,
  };
  const lookup = o.lookup ? { lookup: o.lookup } : {};
  const ca = o.ca ? { ca: o.ca } : {};
  const proxy = proxyFor(o.baseUrl, o.env);
  if (!proxy) return { dispatcher: new Agent({ ...common, connect: { timeout: o.connectTimeoutMs, ...ca, ...lookup } }), proxied: false };
  return {
    dispatcher: new ProxyAgent({
      ...common,
      uri: proxy.href,
      proxyTls: { timeout: o.connectTimeoutMs, ...lookup },
      requestTls: { timeout: o.connectTimeoutMs, ...ca },
    }),
    proxied: true,
  };
}
