/**
 * How many connections `mediagen serve` holds, overall and per client address. Each socket is a
 * file descriptor: without a cap, one client opening idle sockets (1,500 in a review) took them all
 * and every legitimate request failed for as long as it kept them. A new connection over a cap takes
 * the place of the oldest idle one (connected, no request in progress) — of the same client when the
 * per-client cap is the one reached — so idle sockets cannot keep anyone out; only when every held
 * connection is busy with a request is the new one answered 503 and closed.
 */
import type { Socket } from "node:net";

export interface ConnectionLimits {
  /** Connections held at once, all clients together. */
  max: number;
  /** Connections held at once from one client address. */
  perClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { max: 512, perClient: 128 };

interface Held {
  socket: Socket;
  client: string;
  /** Requests in progress on it (0: idle). */
  busy: number;
  /** Whether it has carried a request (an idle keep-alive connection, not a fresh one). */
  used: boolean;
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

  constructor(
    private readonly limits: ConnectionLimits,
    /** Answers a refused connection (a whole HTTP response) before it is closed. */
    private readonly refusal: string,
  ) {}

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
    const entry: Held = { socket, client, busy: 0, used: false };
    this.held.set(socket, entry);
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    socket.once("close", () => this.release(entry));
  }

  /** A request started on `socket`. */
  begin(socket: Socket): void {
    const e = this.held.get(socket);
    if (!e) return;
    e.busy++;
    e.used = true;
  }

  /** A request on `socket` ended (its response finished or was abandoned). */
  end(socket: Socket): void {
    const e = this.held.get(socket);
    if (e && e.busy > 0) e.busy--;
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

  /** Closes the oldest idle connection (of `client` when given). False when every one is busy. */
  private evictIdle(client?: string): boolean {
    for (const e of this.held.values()) {
      if (e.busy > 0 || (client !== undefined && e.client !== client)) continue;
      this.release(e);
      this.evicted++;
      // A fresh connection never asked anything: it gets the answer a refused one gets. A keep-alive
      // one between requests is closed, as its idle timeout would.
      if (e.used) e.socket.destroy();
      else closeWith(e.socket, this.refusal);
      return true;
    }
    return false;
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
