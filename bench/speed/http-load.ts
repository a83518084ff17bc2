/**
 * HTTP load for the speed parts: `clients` keep-alive loops against one endpoint, each sending its
 * next request when the last is answered.
 */
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
};
export type Load = { perSecond: number; p50: number; failures: number; firstFailure: string };

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
  return { perSecond: latencies.length / elapsed, p50: latencies.length ? median(latencies) : NaN, failures, firstFailure };
}

/** An entry's JSON body for `POST /api/handoffs/<id>/entries`, and its answer. */
export const entryBody = (loop: number, request: number) => JSON.stringify({ type: "progress", content: `loop ${loop} request ${request}`, asClient: "code" });
export const appended = (status: number) => status === 201;
