/**
 * Who may see the pages. They show every space, key id, ledger and webhook payload of the
 * instance and act on it (resend), so:
 * - only this machine reads them (a client address on loopback) unless `serve --ui-allow-remote`;
 * - the Host header must name this machine (or the `--public-url` host): a page of another site
 *   whose name was rebound to 127.0.0.1 (DNS rebinding) is refused;
 * - an API key grants nothing here: a request that carries one (`Authorization`) is refused;
 * - a POST must come from a page of the same origin (`Origin`) and carry this process's token;
 * - every request carries this run's secret (as notebook servers do): the URL printed at start has
 *   it (`?token=…`), the first visit trades it for a cookie of this run. Another local user's process
 *   can reach the port but not the secret, so it reads no page and takes no form token.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Every page's Content-Security-Policy: this server's own script and stylesheet, nothing inline, nothing else. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store",
};

export function isLoopbackIp(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, "");
  return a === "::1" || /^127\.\d+\.\d+\.\d+$/.test(a);
}

/** The host part of a Host header (`[::1]:4010` → `::1`). */
export function hostName(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(host) ?? /^([^:]+)(?::\d+)?$/.exec(host);
  return m ? m[1]!.toLowerCase() : undefined;
}

const isLoopbackName = (h: string) => h === "localhost" || h.endsWith(".localhost") || isLoopbackIp(h);

export interface GuardOptions {
  /** `serve --ui-allow-remote`: clients on other machines may read the pages too. */
  allowRemote: boolean;
  /** Host names (besides loopback ones) the pages answer to, e.g. the `--public-url` host. */
  hosts?: readonly string[];
}

export type Verdict = { ok: true } | { ok: false; status: number; message: string };

export class PageGuard {
  /** The per-process token every form carries. */
  readonly token = randomBytes(24).toString("base64url");
  /** This run's secret: in the printed URL, then in the cookie `cookieName`. */
  readonly secret = randomBytes(24).toString("base64url");
  /** Of this run only: two servers on one host (cookies ignore ports) keep their own. */
  readonly cookieName = `mediagen_ui_${randomBytes(6).toString("hex")}`;
  private readonly hosts: Set<string>;

  constructor(private readonly o: GuardOptions) {
    this.hosts = new Set((o.hosts ?? []).map((h) => h.toLowerCase()));
  }

  /** May this request read the pages at all? */
  admit(req: IncomingMessage): Verdict {
    if (req.headers.authorization !== undefined) {
      return { ok: false, status: 403, message: "The pages take no API key: an API key grants nothing here." };
    }
    if (!this.o.allowRemote) {
      if (!isLoopbackIp(req.socket.remoteAddress)) {
        return { ok: false, status: 403, message: "The pages answer this machine only (serve --ui-allow-remote opens them to the network)." };
      }
      const host = hostName(req.headers.host);
      if (host !== undefined && !isLoopbackName(host) && !this.hosts.has(host)) {
        return { ok: false, status: 403, message: "This host name is not this server's." };
      }
    }
    if (!this.secretOf(req)) {
      return { ok: false, status: 403, message: "Open the dashboard with the URL printed when it started (it carries ?token=…)." };
    }
    return { ok: true };
  }

  /** The URL to print: `origin` with this run's secret. */
  urlFor(origin: string): string {
    return `${origin}/?token=${this.secret}`;
  }

  /** Where the request's secret came from (the cookie, or `?token=` of a first visit), if it has the right one. */
  secretOf(req: IncomingMessage): "cookie" | "query" | undefined {
    const cookies = req.headers.cookie ?? "";
    for (const part of cookies.split(";")) {
      const eq = part.indexOf("=");
      if (eq > 0 && part.slice(0, eq).trim() === this.cookieName && same(part.slice(eq + 1).trim(), this.secret)) return "cookie";
    }
    const q = /[?&]token=([^&#]*)/.exec(req.url ?? "");
    if (q && same(decodeURIComponentSafe(q[1]!), this.secret)) return "query";
    return undefined;
  }

  /** The cookie a first visit with `?token=` gets: this run's, for this server only, never to scripts. */
  cookie(): string {
    return `${this.cookieName}=${this.secret}; Path=/; HttpOnly; SameSite=Strict`;
  }

  /** A state-changing request: same origin (the Origin header names the Host it was sent to) and this process's token. */
  checkPost(req: IncomingMessage, token: string | undefined): Verdict {
    const origin = req.headers.origin;
    const host = req.headers.host;
    let sameOrigin = false;
    try {
      sameOrigin = !!origin && !!host && origin !== "null" && new URL(origin).host === host.toLowerCase();
    } catch {
      sameOrigin = false;
    }
    if (!sameOrigin) return { ok: false, status: 403, message: "Cross-site request refused (Origin does not match)." };
    const want = Buffer.from(this.token);
    const got = Buffer.from(token ?? "");
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      return { ok: false, status: 403, message: "Missing or stale form token: reload the page and try again." };
    }
    return { ok: true };
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return "";
  }
}
