import type { LookupFunction } from "node:net";
import { Agent, EnvHttpProxyAgent, type Dispatcher } from "undici";

/** Hosts that never go through a proxy: this machine. */
const LOOPBACK_NO_PROXY = ["localhost", "127.0.0.1", "::1", "[::1]"];

export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/** Reads the proxy variables the way curl does (lower case first). `undefined` when none is set. */
export function proxySettingsFromEnv(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY ?? "";
  const httpsProxy = env.https_proxy ?? env.HTTPS_PROXY ?? "";
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy, noProxy: withLoopbackBypass(env.no_proxy ?? env.NO_PROXY ?? "") };
}

/** NO_PROXY with this machine's names added, so a local `serve` is reached directly. */
export function withLoopbackBypass(noProxy: string): string {
  const entries = noProxy.split(/[,\s]+/).filter(Boolean);
  if (entries.includes("*")) return "*";
  for (const h of LOOPBACK_NO_PROXY) if (!entries.includes(h)) entries.push(h);
  return entries.join(",");
}

/** True for names and addresses of this machine (the whole 127/8 range, ::1, localhost). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export interface DispatcherOptions {
  baseUrl: URL;
  env: NodeJS.ProcessEnv;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Extra trust for the service's certificate (a private CA); also applied inside proxy tunnels. */
  ca?: string | Buffer;
  /** Name resolution for direct connections (tests map names to 127.0.0.1 without DNS). */
  lookup?: LookupFunction;
}

/**
 * One dispatcher (connection pool) for the engine's life. A proxy agent only when a proxy variable
 * is set and the service is not on this machine.
 */
export function createDispatcher(o: DispatcherOptions): { dispatcher: Dispatcher; proxied: boolean } {
  const common = {
    headersTimeout: o.headersTimeoutMs,
    bodyTimeout: o.bodyTimeoutMs,
    keepAliveTimeout: 4_000,
  };
  const connect = { timeout: o.connectTimeoutMs, ...(o.ca ? { ca: o.ca } : {}), ...(o.lookup ? { lookup: o.lookup } : {}) };
  const proxy = isLoopbackHost(o.baseUrl.hostname) ? undefined : proxySettingsFromEnv(o.env);
  if (!proxy) return { dispatcher: new Agent({ ...common, connect }), proxied: false };
  return {
    dispatcher: new EnvHttpProxyAgent({
      ...common,
      connect,
      httpProxy: proxy.httpProxy,
      httpsProxy: proxy.httpsProxy,
      noProxy: proxy.noProxy,
      ...(o.ca ? { requestTls: { ca: o.ca } } : {}),
    }),
    proxied: true,
  };
}
