/**
 * How many connections `mediagen serve` holds, overall and per client address. Each socket is a
 * file descriptor: without a cap, one client opening idle sockets (1,500 in a review) took them all
 * and every legitimate request failed for as long as it kept them. A new connection over a cap takes
 * the place of the oldest idle one (connected, no request in progress) — of the same client when the
 * per-client cap is the one reached — so idle sockets cannot keep anyone out; only when every held
 * connection is busy with a request is the new one answered 503 and closed.
 *
 * A request whose body arrives slower than a minimum rate is cut (408) once past a grace period:
 * it may take `graceMs` plus one second per `minBytesPerSecond` bytes received. And one that is
 * already below that rate (past `evictAfterMs`) is not "busy" when room is needed: a new
 * connection takes its place before it takes a fresh one's. So slow senders, renewed as fast as
 * they are cut, cannot hold the last slots (a review's 140 slow-body connections of one host left
 * it 7 answers out of 82 requests).
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionLimits {
  /** Connections held at once, all clients together. */
  max: number;
  /** Connections held at once from one client address. */
  perClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { max: 512, perClient: 128 };

export interface SlowBodyLimits {
  /** The slowest body accepted, in bytes per second (after the grace period). */
  minBytesPerSecond: number;
  /** How long any body may take before the rate counts. */
  graceMs: number;
  /** How long a body below the rate must have lasted before a new connection may take its place. */
  evictAfterMs: number;
}

export const DEFAULT_SLOW_BODY: SlowBodyLimits = { minBytesPerSecond: 500, graceMs: 5_000, evictAfterMs: 500 };

/** A request whose body is still arriving. */
interface Body {
  req: IncomingMessage;
  started: number;
  /** The socket's bytes read when the request's headers were parsed. */
  bytesAt: number;
  /** Answers 408 and closes (the request is too slow). */
  cut: () => void;
}

interface Held {
  socket: Socket;
  client: string;
  /** Requests in progress on it (0: idle). */
  busy: number;
  /** Whether it has carried a request (an idle keep-alive connection, not a fresh one). */
  used: boolean;
  body?: Body | undefined;
  /** The socket's bytes read when its last request ended (where the next one starts). */
  lastEnd: number;
}

/** The size of a request's head as sent in the usual form (request line, `name: value` lines, blank line). */
function headBytes(req: IncomingMessage): number {
  let n = Buffer.byteLength(`${req.method} ${req.url} HTTP/${req.httpVersion}\r\n\r\n`);
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) n += Buffer.byteLength(raw[i]!) + Buffer.byteLength(raw[i + 1]!) + 4;
  return n;
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
function clientOf(socket: Socket): string {
  return (socket.remoteAddress ?? "unknown").replace(/^::ffff:/, "");
}

export class ConnectionLimiter {
  /** In arrival order: the first idle one found is the oldest. */
  private readonly held = new Map<Socket, Held>();
  private readonly perClient = new Map<string, number>();
  /** Connections refused or closed to make room (for logs and tests). */
  refused = 0;
  evicted = 0;

  cutSlow = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: ConnectionLimits,
    /** Answers a refused connection (a whole HTTP response) before it is closed. */
    private readonly refusal: string,
    private readonly slow: SlowBodyLimits = DEFAULT_SLOW_BODY,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Stops the slow-body checks (the server closes). */
  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /**
   * Whether the body of `b` has fallen below the minimum rate `after` ms into it. A body that we
   * do not read (our buffer full) is not the client's fault.
   */
  private tooSlow(b: Body, after: number, now: number): boolean {
    if (b.req.complete || b.req.destroyed) return false;
    if (b.req.readableLength >= b.req.readableHighWaterMark) {
      b.started = now;
      b.bytesAt = b.req.socket.bytesRead;
      return false;
    }
    const received = Math.max(0, b.req.socket.bytesRead - b.bytesAt);
    return now - b.started > after + (received / this.slow.minBytesPerSecond) * 1000;
  }

  /** Cuts every request whose body is slower than the minimum rate past the grace period. */
  private sweep(): void {
    const now = this.now();
    let pending = 0;
    for (const e of this.held.values()) {
      if (!e.body) continue;
      if (e.body.req.complete || e.body.req.destroyed) {
        e.body = undefined;
        continue;
      }
      if (this.tooSlow(e.body, this.slow.graceMs, now)) this.cutBody(e);
      else pending++;
    }
    if (pending === 0) this.stop();
  }

  private cutBody(e: Held): void {
    const cut = e.body!.cut;
    e.body = undefined;
    this.cutSlow++;
    this.release(e);
    cut();
    setTimeout(() => e.socket.destroy(), 1_000).unref();
  }

  /** A new connection: held, possibly in place of an idle one; or answered 503 and closed. */
  admit(socket: Socket): void {
    const client = clientOf(socket);
    if ((this.perClient.get(client) ?? 0) >= this.limits.perClient && !this.evictIdle(client)) {
      this.refuse(socket);
      return;
    }
    if (this.held.size >= this.limits.max && !this.evictIdle()) {
      this.refuse(socket);
      return;
    }
    const entry: Held = { socket, client, busy: 0, used: false, lastEnd: 0 };
    this.held.set(socket, entry);
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    socket.once("close", () => this.release(entry));
  }

  /** A request started on `socket`; `cut` answers it 408 and closes should its body be too slow. */
  begin(socket: Socket, req?: IncomingMessage, cut?: () => void): void {
    const e = this.held.get(socket);
    if (!e) return;
    e.busy++;
    e.used = true;
    if (!req || !cut || req.complete) return;
    // Body bytes that came with the headers are already read: count from the end of the headers.
    e.body = { req, started: this.now(), bytesAt: Math.min(socket.bytesRead, e.lastEnd + headBytes(req)), cut };
    if (!this.sweeper) {
      const tick = Math.max(10, Math.min(1_000, Math.floor(Math.min(this.slow.graceMs, this.slow.evictAfterMs * 2) / 4)));
      this.sweeper = setInterval(() => this.sweep(), tick);
      this.sweeper.unref();
    }
  }

  /** A request on `socket` ended (its response finished or was abandoned). */
  end(socket: Socket): void {
    const e = this.held.get(socket);
    if (!e) return;
    if (e.busy > 0) e.busy--;
    e.lastEnd = socket.bytesRead;
  }

  get size(): number {
    return this.held.size;
  }

  private release(e: Held): void {
    if (!this.held.delete(e.socket)) return;
    const n = (this.perClient.get(e.client) ?? 1) - 1;
    if (n <= 0) this.perClient.delete(e.client);
    else this.perClient.set(e.client, n);
  }

  /**
   * Makes room (of `client` when given): closes the oldest idle keep-alive connection, else cuts the
   * request whose body is furthest below the minimum rate, else closes the oldest fresh connection.
   * False when every one is busy with a request at a fair pace.
   */
  private evictIdle(client?: string): boolean {
    const now = this.now();
    let fresh: Held | undefined;
    let slowest: Held | undefined;
    let slowestLag = 0;
    for (const e of this.held.values()) {
      if (client !== undefined && e.client !== client) continue;
      if (e.busy === 0) {
        if (e.used) return this.closeIdle(e);
        fresh ??= e;
      } else if (e.body && this.tooSlow(e.body, 0, now)) {
        // How far behind the minimum rate it is (ms): the furthest behind goes first.
        const lag = now - e.body.started - (Math.max(0, e.socket.bytesRead - e.body.bytesAt) / this.slow.minBytesPerSecond) * 1000;
        if (lag > slowestLag) [slowest, slowestLag] = [e, lag];
      }
    }
    // Slow senders renewed as fast as they are cut keep every body young: one past `evictAfterMs`
    // goes before a fresh connection, and any below the rate before a refusal. A fresh connection
    // (a legitimate client about to send its request) goes last.
    if (slowest && slowestLag > this.slow.evictAfterMs) return this.cutSlowest(slowest);
    if (fresh && !slowest) return this.closeIdle(fresh);
    if (slowest) return this.cutSlowest(slowest);
    return false;
  }

  private cutSlowest(e: Held): boolean {
    this.cutBody(e);
    this.evicted++;
    return true;
  }

  private closeIdle(e: Held): boolean {
    this.release(e);
    this.evicted++;
    // A fresh connection never asked anything: it gets the answer a refused one gets. A keep-alive
    // one between requests is closed, as its idle timeout would.
    if (e.used) e.socket.destroy();
    else closeWith(e.socket, this.refusal);
    return true;
  }

  private refuse(socket: Socket): void {
    this.refused++;
    closeWith(socket, this.refusal);
  }
}

/** Sends `answer` and closes; a client that never reads does not keep the socket past a second. */
function closeWith(socket: Socket, answer: string): void {
  socket.end(answer, () => socket.destroy());
  setTimeout(() => socket.destroy(), 1_000).unref();
}
