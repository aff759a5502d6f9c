/**
 * Vitest global setup: the environment every process of the run inherits (the test workers start
 * after this, and the CLIs, workers and servers they start inherit theirs) leaves out
 * NODE_EXTRA_CA_CERTS. Node reads that bundle whole at every start, before any code runs: with the
 * system's ~140 certificates that is ~55 ms of CPU per process (measured: `node -e 0` takes 80 ms
 * with it, 25 ms without), and the run starts about 300 node processes. No test talks TLS to a
 * host that needs an extra authority; the test of the proxy settings makes its own CA.
 */
export default function setup(): void {
  delete process.env.NODE_EXTRA_CA_CERTS;
}
