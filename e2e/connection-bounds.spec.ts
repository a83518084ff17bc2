import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { prepareDataDir, startAndWait, stopAndWait, type ExtraServer } from "./support/extra-server";
import { createLan, type Lan } from "./support/network-namespaces";

/**
 * Issue 27, point 11: connections that say nothing are closed. A LAN peer in a network namespace
 * this test creates opens 2,000 TCP connections to Baton (as `npm start` runs it, listening on
 * every address of its own namespace, with a descriptor limit of 1,024 so the flood would exhaust
 * it) and never sends a byte. Baton closes what is past the peer's cap at once and the rest when
 * their headers' deadline passes; meanwhile the operator's loopback and another LAN machine get
 * their answers.
 */
const root = path.resolve(import.meta.dirname, "..");
const basePort = Number(process.env.BATON_E2E_PORT || 3100);
const port = basePort + 15;
/** lib/server/connection-bounds.ts's HEADERS_DEADLINE_MS and MAX_CONNECTIONS_PER_PEER, as a client sees them. */
const HEADERS_DEADLINE_MS = 10_000;
const PER_PEER = 128;
const FLOOD = 2_000;

let network: Lan;
let server: ExtraServer | undefined;
let dataDir = "";

/** curl inside `ns` (from `from`, one of its addresses, when given): the status and how long the answer took. */
function curl(ns: string, url: string, from?: string): { status: number; seconds: number } {
  const args = ["netns", "exec", ns, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--max-time", "10", ...(from ? ["--interface", from] : []), url];
  // curl exits non-zero on a connection closed without an answer; its -w line still says 000.
  const [status, seconds] = spawnSync("ip", args, { encoding: "utf8" }).stdout.trim().split(" ");
  return { status: Number(status), seconds: Number(seconds) };
}

test.beforeAll(async () => {
  network = createLan("f", 233, 2);
  const prepared = prepareDataDir([{ name: "flood-ops", role: "operator" }]);
  dataDir = prepared.dataDir;
  server = await startAndWait(
    { dataDir, port, host: "0.0.0.0", netns: network.serverNs, openFiles: 1024 },
    async () => curl(network.clientNs, `http://${network.serverIp}:${port}/api/health`).status === 200,
    "Baton in its namespace",
  );
});

test.afterAll(async () => {
  if (server) await stopAndWait(server);
  network?.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("a LAN peer's idle flood is capped and closed within the headers' deadline; loopback and other peers are answered meanwhile", async () => {
  test.setTimeout(90_000);
  const [flooder, neighbour] = network.clientIps;
  const watchMs = HEADERS_DEADLINE_MS + 6_000;
  const flood = spawn("ip", ["netns", "exec", network.clientNs, process.execPath, path.join(root, "e2e/support/idle-flood.mjs"), network.serverIp, String(port), String(FLOOD), String(watchMs)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  flood.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const finished = new Promise<void>((resolve) => flood.on("close", () => resolve()));

  await new Promise((resolve) => setTimeout(resolve, 2_000));
  // While the flood holds its connections: the operator on the server's own machine, and another LAN machine.
  const fromLoopback = curl(network.serverNs, `http://127.0.0.1:${port}/api/health`);
  expect(fromLoopback.status).toBe(200);
  expect(fromLoopback.seconds).toBeLessThan(2);
  const fromNeighbour = curl(network.clientNs, `http://${network.serverIp}:${port}/api/health`, neighbour);
  expect(fromNeighbour.status).toBe(200);
  // The flooder itself is at its cap: a new connection from it is closed without an answer.
  expect(curl(network.clientNs, `http://${network.serverIp}:${port}/api/health`, flooder).status).toBe(0);

  await finished;
  const result = JSON.parse(output) as { connected: number; failed: number; closedAt: number[] };
  expect(result.connected + result.failed).toBe(FLOOD);
  // Every connection ended by the server: past the cap at once, the rest at the headers' deadline.
  expect(result.closedAt).toHaveLength(FLOOD);
  const late = result.closedAt.filter((at) => at > 5_000);
  expect(late.length).toBeLessThanOrEqual(PER_PEER);
  expect(late.length).toBeGreaterThan(0);
  for (const at of late) {
    expect(at).toBeGreaterThan(HEADERS_DEADLINE_MS - 1_000);
    expect(at).toBeLessThan(HEADERS_DEADLINE_MS + 4_000);
  }
  // After the flood, the peer is served again.
  expect(curl(network.clientNs, `http://${network.serverIp}:${port}/api/health`, flooder).status).toBe(200);
});
