/**
 * `mediagen serve` under a client that hoards connections: idle sockets cannot keep legitimate
 * requests out (the oldest idle one makes room), slow bodies are cut off by a timeout with a 408,
 * and the limits are stated in `serve --help`. The serve child runs with a file-descriptor limit
 * of 400 and is sent 600 idle sockets from 127.0.0.1 (the review's 1,500 against a default limit
 * of 1,024): before the connection cap, every legitimate request then failed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { tempHome } from "../helpers/local.js";
import { assertBuilt, BIN, childEnv, createKey, runCli } from "./serve-child.js";

const IDLE = 600;

function startLimitedServe(env: NodeJS.ProcessEnv): Promise<{ proc: ChildProcess; baseUrl: string }> {
  const proc = spawn("/bin/sh", ["-c", 'ulimit -n 400 && exec "$0" "$@"', process.execPath, BIN, "serve", "--port", "0", "--json"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ proc, baseUrl: (JSON.parse(out.slice(0, nl)) as { base_url: string }).base_url });
    });
    proc.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });
}

function get(url: string, key: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, headers: { authorization: `Bearer ${key}` }, timeout: 5_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}

function openIdle(port: number, n: number): Promise<net.Socket[]> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(port, "127.0.0.1", () => resolve(s));
          s.on("error", () => resolve(s));
        }),
    ),
  );
}

describe("serve with 600 idle sockets from one client", () => {
  let child: ChildProcess | undefined;
  afterAll(() => child?.kill("SIGKILL"));

  it("still answers every legitimate request", async () => {
    assertBuilt();
    const env = childEnv(tempHome());
    const key = await createKey(env);
    const served = await startLimitedServe(env);
    child = served.proc;
    const port = Number(new URL(served.baseUrl).port);
    const idle = await openIdle(port, IDLE);
    // Let the server accept them all.
    await new Promise((r) => setTimeout(r, 300));
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push(await get(`${served.baseUrl}/folder/list`, key));
    for (const s of idle) s.destroy();
    expect(statuses).toEqual(new Array(10).fill(200));
  });

  it("states its limits in serve --help", async () => {
    const r = await runCli(["serve", "--help"], childEnv(tempHome()));
    expect(r.stdout).toMatch(/--max-connections <n>[\s\S]*512/);
    expect(r.stdout).toMatch(/--max-connections-per-client <n>[\s\S]*128/);
    expect(r.stdout).toMatch(/--headers-timeout <duration>[\s\S]*20s/);
    expect(r.stdout).toMatch(/--body-timeout <duration>[\s\S]*30s/);
  });
});

describe("timeouts and refusals (in process)", () => {
  let instance: LocalInstance;
  let server: RunningServer;
  beforeAll(async () => {
    instance = openLocalInstance({ home: tempHome(), worker: "none" });
    server = await startServer({ instance, port: 0, bodyTimeoutMs: 400, connections: { max: 8, perClient: 4 } });
  });
  afterAll(async () => {
    await server.close(0);
    await instance.close();
  });
  const port = () => Number(new URL(server.origin).port);

  it("answers a body that does not arrive in time 408 and closes", async () => {
    const s = net.connect(port(), "127.0.0.1");
    let answer = "";
    s.on("data", (d) => (answer += d.toString()));
    s.write('POST /api/public/v1/folder/create HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"na');
    await new Promise<void>((r) => s.on("close", () => r()));
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain("request_timeout");
  });

  it("answers 503 when every connection a client may hold is busy", async () => {
    // A server of its own whose bodies may take long: the four busy requests must still be in
    // flight when the fifth connection arrives, however slow the machine is.
    const patient = await startServer({ instance, port: 0, bodyTimeoutMs: 30_000, connections: { max: 8, perClient: 4 } });
    try {
      const patientPort = Number(new URL(patient.origin).port);
      let started = 0;
      const allBusy = new Promise<void>((resolve) => {
        patient.server.on("request", () => {
          if (++started === 4) resolve();
        });
      });
      // Four requests whose bodies never finish keep the client's four connections busy.
      const busy = Array.from({ length: 4 }, () => {
        const s = net.connect(patientPort, "127.0.0.1");
        s.on("error", () => undefined);
        s.write("POST /api/public/v1/folder/create HTTP/1.1\r\nhost: x\r\ncontent-length: 50\r\n\r\n{");
        return s;
      });
      await allBusy;
      const s = net.connect(patientPort, "127.0.0.1");
      let answer = "";
      s.on("data", (d) => (answer += d.toString()));
      await new Promise<void>((r) => s.on("close", () => r()));
      for (const b of busy) b.destroy();
      expect(answer).toMatch(/^HTTP\/1\.1 503/);
      expect(answer).toContain("too_many_connections");
    } finally {
      await patient.close(0);
    }
  });
});
