/**
 * HTTP load for the speed parts: `clients` keep-alive loops against one endpoint, each sending its
 * next request when the last is answered.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { median } from "../support";

export type Endpoint = {
  label: string;
  port: number;
  method: "GET" | "POST";
  /** Each loop appends to its own thread. */
  path: (loop: number) => string;
  body?: (loop: number, request: number) => string;
  ok: (status: number, body: string) => boolean;
  /** The serving process, whose CPU time per answered request the load reports. */
  pid?: number;
};
/** `cpuMsPerRequest`: the serving process's CPU time (user + system) over the run, per answered request; NaN without a pid. */
export type Load = { perSecond: number; p50: number; failures: number; firstFailure: string; cpuMsPerRequest: number };

const CLOCK_TICKS_PER_S = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** A process's CPU time so far in ms (utime + stime of /proc/<pid>/stat). */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

function send(agent: http.Agent, endpoint: Endpoint, path: string, body: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { accept: "application/json, text/event-stream" };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(body);
    }
    const request = http.request({ host: "127.0.0.1", port: endpoint.port, path, method: endpoint.method, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** `clients` loops on keep-alive connections, each sending its next request when the last is answered, for `seconds`. */
export async function hammer(endpoint: Endpoint, clients: number, seconds: number): Promise<Load> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure = "";
  const cpuAtStart = endpoint.pid ? cpuMsOf(endpoint.pid) : NaN;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, loop) => {
      const path = endpoint.path(loop);
      for (let request = 0; performance.now() < end; request++) {
        const sent = performance.now();
        try {
          const answer = await send(agent, endpoint, path, endpoint.body?.(loop, request));
          if (!endpoint.ok(answer.status, answer.body)) throw new Error(`${answer.status} ${answer.body.slice(0, 300)}`);
          latencies.push(performance.now() - sent);
        } catch (error) {
          failures++;
          firstFailure ||= (error as Error).message;
        }
      }
    }),
  );
  agent.destroy();
  const elapsed = (performance.now() - start) / 1000;
  const cpuMsPerRequest = endpoint.pid ? (cpuMsOf(endpoint.pid) - cpuAtStart) / latencies.length : NaN;
  return { perSecond: latencies.length / elapsed, p50: latencies.length ? median(latencies) : NaN, failures, firstFailure, cpuMsPerRequest };
}

/** An entry's JSON body for `POST /api/handoffs/<id>/entries`, and its answer. */
export const entryBody = (loop: number, request: number) => JSON.stringify({ type: "progress", content: `loop ${loop} request ${request}`, asClient: "code" });
export const appended = (status: number) => status === 201;
