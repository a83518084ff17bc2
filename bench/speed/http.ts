/**
 * Speed part `http` (2 and 4b): appends per second over HTTP with 1 and 16 keep-alive clients,
 * REST and MCP on the served dashboard against its trivial route (GET /api/health), against
 * bench/workers/floor-http.ts (node:http + better-sqlite3 doing Baton's append on Baton's schema)
 * and against bench/workers/floor-http-minimal.ts (node:http + better-sqlite3 doing only the
 * seed's check, insert and cursor update on a minimal table: issue 29's minimal floor); then the
 * resident memory of the dashboard server and the floor after that run.
 */
import { f1, msOf, perS, type Figure } from "../report";
import { residentMb } from "../support";
import { HTTP_SECONDS, log, threadOf } from "./common";
import { appended, entryBody, hammer, type Endpoint, type Load } from "./http-load";

type Served = { port: number; pid: number };

export async function httpAppends(dashboard: Served, floor: Served, minimal: Served & { threads: string[] }): Promise<Figure[]> {
  log(`\n2. HTTP appends, keep-alive clients, ${HTTP_SECONDS} s per figure (targets interleaved, each warmed up first):`);
  const port = dashboard.port;
  const batonThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `HTTP ${index}`)));
  const floorThreads = await Promise.all(Array.from({ length: 16 }, (_, index) => threadOf(1, `HTTP floor ${index}`)));
  const endpoints: Endpoint[] = [
    { label: "trivial", port, pid: dashboard.pid, method: "GET", path: () => "/api/health", ok: (status) => status === 200 },
    { label: "REST", port, pid: dashboard.pid, method: "POST", path: (loop) => `/api/handoffs/${batonThreads[loop]}/entries`, body: entryBody, ok: appended },
    {
      label: "MCP",
      port,
      pid: dashboard.pid,
      method: "POST",
      path: () => "/api/mcp",
      body: (loop, request) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id: request + 1,
          method: "tools/call",
          params: { name: "add_to_handoff", arguments: { id: batonThreads[loop], type: "progress", content: `loop ${loop} request ${request}`, as_client: "code" } },
        }),
      ok: (status, body) => status === 200 && body.includes('"result"') && !body.includes('"isError":true'),
    },
    { label: "floor", port: floor.port, pid: floor.pid, method: "POST", path: (loop) => `/api/handoffs/${floorThreads[loop]}/entries`, body: entryBody, ok: appended },
    { label: "minimal", port: minimal.port, pid: minimal.pid, method: "POST", path: (loop) => `/api/handoffs/${minimal.threads[loop]}/entries`, body: entryBody, ok: appended },
  ];
  const names: Record<string, string> = {
    trivial: "trivial route GET /api/health",
    REST: "REST POST /api/handoffs/<id>/entries",
    MCP: "MCP add_to_handoff POST /api/mcp",
    floor: "bare node:http + better-sqlite3",
    minimal: "minimal floor (check, insert, cursor)",
  };
  const results = new Map<string, Load>();
  for (const endpoint of endpoints) await hammer(endpoint, 16, 1);
  for (const clients of [1, 16]) {
    for (const endpoint of endpoints) {
      const load = await hammer(endpoint, clients, HTTP_SECONDS);
      results.set(`${endpoint.label}/${clients}`, load);
      log(
        `  ${String(clients).padStart(2)} client${clients > 1 ? "s" : " "} ${names[endpoint.label].padEnd(38)} ${perS(load.perSecond).padStart(8)} · p50 ${msOf(load.p50)} · server CPU ${msOf(load.cpuMsPerRequest)} per request` +
          (load.failures ? ` · FAILURES ${load.failures} (first: ${load.firstFailure})` : ""),
      );
    }
  }
  const figures: Figure[] = [];
  for (const clients of [1, 16]) {
    const rate = (label: string) => results.get(`${label}/${clients}`)!.perSecond;
    const of = `${clients} client${clients > 1 ? "s" : ""}`;
    for (const door of ["REST", "MCP"]) {
      figures.push({ name: `HTTP ${door} appends, ${of}, vs trivial`, value: rate(door), unit: "/s", reference: { value: rate("trivial"), label: "trivial" } });
      figures.push({ name: `HTTP ${door} appends, ${of}, vs bare floor`, value: rate(door), unit: "/s", reference: { value: rate("floor"), label: "floor" } });
      figures.push({ name: `HTTP ${door} appends, ${of}, vs minimal floor`, value: rate(door), unit: "/s", reference: { value: rate("minimal"), label: "minimal floor" } });
    }
  }
  // What an append costs the server, whatever else the machine runs: its CPU time per append.
  const cpu = (label: string) => results.get(`${label}/16`)!.cpuMsPerRequest;
  for (const door of ["REST", "MCP"]) {
    figures.push({ name: `HTTP ${door} append server CPU, 16 clients`, value: cpu(door), unit: "ms", reference: { value: cpu("minimal"), label: "minimal floor" } });
  }
  const failures = [...results.values()].reduce((sum, load) => sum + load.failures, 0);
  figures.push({ name: "HTTP failed requests", value: failures, unit: "count" });

  const dashboardMb = residentMb(dashboard.pid);
  const floorMb = residentMb(floor.pid);
  log(`\n4b. after the HTTP run: dashboard server ${f1(dashboardMb)} MB resident · bare floor ${f1(floorMb)} MB`);
  figures.push({ name: "dashboard resident memory after HTTP run", value: dashboardMb, unit: "MB", reference: { value: floorMb, label: "floor" } });
  return figures;
}
