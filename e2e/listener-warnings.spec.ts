import fs from "node:fs";
import http from "node:http";
import { expect, test } from "@playwright/test";
import { whenHydrated, prepareDataDir, startAndWait, stopAndWait, type ExtraServer } from "./support/extra-server";

/**
 * Node warns `MaxListenersExceededWarning: … 11 close listeners added to [ServerResponse]` when a
 * response gains an eleventh listener: a server action's answer carries seven from Next, one from
 * Hono's adapter and Baton's own, and the body deadline (1b04645) added one more per request with
 * a body, so every form post on the desk logged the warning. A server as `npm start` runs it, its
 * stderr kept: form posts through Chromium, many requests on one keep-alive connection, and a body
 * that arrives slowly but within its deadline; the server then stops and its stderr is read.
 */
const port = Number(process.env.BATON_E2E_PORT || 3100) + 44;
const origin = `http://127.0.0.1:${port}`;

let server: ExtraServer | undefined;
let dataDir = "";

test.beforeAll(async () => {
  dataDir = prepareDataDir().dataDir;
  server = await startAndWait({ dataDir, port }, async () => (await fetch(`${origin}/api/health`)).ok, "a Baton whose stderr is kept");
});

test.afterAll(async () => {
  if (server) await stopAndWait(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** One request on `agent`'s connection; the body is written `pieces` parts `pauseMs` apart. */
function send(agent: http.Agent, method: string, path: string, body = "", pieces = 1, pauseMs = 0): Promise<{ status: number; socketPort: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${origin}${path}`, { method, agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode ?? 0, socketPort: request.socket?.localPort ?? 0 }));
    });
    request.on("error", reject);
    const size = Math.ceil(body.length / pieces);
    const write = (at: number) => {
      if (at >= body.length) return void request.end();
      request.write(body.slice(at, at + size));
      setTimeout(() => write(at + size), pauseMs);
    };
    write(0);
  });
}

test("form posts, many requests on one keep-alive connection and a slow but timely body leave no listener warning on the server's stderr", async ({ page }) => {
  test.setTimeout(90_000);
  for (const title of ["Listener check one", "Listener check two", "Listener check three"]) {
    await page.goto(`${origin}/handoffs/new`);
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("First context").fill("posted through the desk's form");
    await (await whenHydrated(page.getByRole("button", { name: "Create handoff" }))).click();
    await expect(page).toHaveURL(/\/handoffs\/hof_[A-Za-z0-9_-]{21}/);
  }

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ports = new Set<number>();
  for (let index = 0; index < 15; index += 1) {
    const created = await send(agent, "POST", "/api/handoffs", JSON.stringify({ title: `Kept alive ${index}`, content: "one connection" }));
    const listed = await send(agent, "GET", "/api/handoffs");
    expect([created.status, listed.status]).toEqual([201, 200]);
    ports.add(created.socketPort).add(listed.socketPort);
  }
  // 24 KiB in six parts over about 3 s: slow, within the 10 s a small body has.
  const slow = await send(agent, "POST", "/api/handoffs", JSON.stringify({ title: "Slow but timely", content: "x".repeat(24 * 1024) }), 6, 500);
  expect(slow.status).toBe(201);
  ports.add(slow.socketPort);
  agent.destroy();
  expect(ports.size, "every request went over one connection").toBe(1);

  const stopped = server!;
  server = undefined;
  await stopAndWait(stopped);
  const { stderr } = await stopped.exited;
  expect(stderr).not.toContain("MaxListenersExceededWarning");
  expect(stderr).not.toMatch(/memory leak/i);
});
