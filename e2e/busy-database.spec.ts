import { spawn } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { prepareDataDir, startAndWait, stopAndWait, whenHydrated, type ExtraServer } from "./support/extra-server";

/**
 * The desk's form when another process keeps SQLite's write lock past Baton's wait
 * (BATON_BUSY_TIMEOUT_MS, shortened here): the server action answers the database layer's busy
 * message as the form's own, what was typed stays, and nothing is stored. A port of this task's own.
 */
const port = 41600;
const origin = `http://127.0.0.1:${port}`;
let server: ExtraServer | undefined;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = prepareDataDir().dataDir;
  server = await startAndWait({ dataDir, port, env: { BATON_BUSY_TIMEOUT_MS: "300" } }, async () => (await fetch(`${origin}/api/health`)).ok, "the busy-database server");
});
test.afterAll(async () => {
  if (server) await stopAndWait(server);
});

/** Another process holding the write lock (BEGIN IMMEDIATE) of the database in `folder` until released. */
async function holdWriteLock(folder = dataDir): Promise<() => Promise<void>> {
  const holder = spawn(
    process.execPath,
    ["-e", `const db = new (require("better-sqlite3"))(process.argv[1]); db.exec("BEGIN IMMEDIATE"); process.stdout.write("held\\n"); process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); }).resume();`, path.join(folder, "baton.db")],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise((resolve) => holder.once("exit", resolve));
  await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
  return async () => {
    holder.stdin.end();
    await exited;
  };
}

test("an entry posted while the database is busy: the form says so and that it may be sent again, keeps the text, and stores nothing", async ({ page }) => {
  const created = await fetch(`${origin}/api/handoffs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Busy desk", content: "first" }) });
  expect(created.status).toBe(201);
  const { handoff } = (await created.json()) as { handoff: { id: string } };
  await page.goto(`${origin}/handoffs/${handoff.id}`);
  await expect(page.locator("li[data-seq]")).toHaveCount(1);
  await page.getByLabel("Content").fill("Posted while locked");
  const post = await whenHydrated(page.getByRole("button", { name: "Post entry" }));
  const release = await holdWriteLock();
  try {
    await post.click();
    await expect(page.getByText(/the database is busy: another process kept it locked for the 300 ms Baton waits .*send the same request again in a moment/)).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Content" })).toHaveValue("Posted while locked");
  } finally {
    await release();
  }
  await page.reload();
  await expect(page.locator("li[data-seq]")).toHaveCount(1);
});

/**
 * While this server's write waits for another process's lock, the rest of the server goes on: the
 * wait used to block the thread (Atomics.wait between tries), so for up to BATON_BUSY_TIMEOUT_MS
 * nothing was answered, not even what needs no database. Its own server, waiting 5 s.
 */
test.describe("a write waiting for another process's lock", () => {
  const waitingPort = 42001;
  const waitingOrigin = `http://127.0.0.1:${waitingPort}`;
  const WAIT_MS = 5_000;
  let waitingServer: ExtraServer | undefined;
  let waitingDir: string;
  test.beforeAll(async () => {
    waitingDir = prepareDataDir().dataDir;
    waitingServer = await startAndWait(
      { dataDir: waitingDir, port: waitingPort, env: { BATON_BUSY_TIMEOUT_MS: String(WAIT_MS) } },
      async () => (await fetch(`${waitingOrigin}/api/health`)).ok,
      "the waiting server",
    );
  });
  test.afterAll(async () => {
    if (waitingServer) await stopAndWait(waitingServer);
  });

  const post = (path: string, body: unknown) => fetch(`${waitingOrigin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const timed = async <T>(request: () => Promise<T>): Promise<{ value: T; ms: number }> => {
    const sentAt = performance.now();
    const value = await request();
    return { value, ms: performance.now() - sentAt };
  };
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** What Baton answers without its database: OPTIONS of an API path (204 and its methods). */
  const withoutDatabase = () => fetch(`${waitingOrigin}/api/health`, { method: "OPTIONS" });
  const newThread = async () => {
    const created = await post("/api/handoffs", { title: "Waiting", content: "first" });
    expect(created.status).toBe(201);
    return ((await created.json()) as { handoff: { id: string } }).handoff.id;
  };

  test("what needs no database is answered at once, the waiting write goes in when the lock is let go", async () => {
    const id = await newThread();
    const release = await holdWriteLock(waitingDir);
    const write = timed(() => post(`/api/handoffs/${id}/entries`, { type: "progress", content: "waited for the lock" }));
    try {
      await settle(500);
      const options = await timed(withoutDatabase);
      expect(options.value.status).toBe(204);
      expect(options.ms).toBeLessThan(1_000);
      // The health check reads (SELECT 1), which another process's write lock does not stop.
      const health = await timed(() => fetch(`${waitingOrigin}/api/health`));
      expect(health.value.status).toBe(200);
      expect(health.ms).toBeLessThan(1_000);
      await settle(2_000);
    } finally {
      await release();
    }
    const written = await write;
    expect(written.value.status).toBe(201);
    expect(written.ms).toBeGreaterThan(2_400);
    const thread = (await (await fetch(`${waitingOrigin}/api/handoffs/${id}`)).json()) as { entries: { content: string }[] };
    expect(thread.entries.map((entry) => entry.content)).toEqual(["first", "waited for the lock"]);
  });

  test("a read queued behind waiting writes is answered within the same wait, not after theirs added up", async () => {
    const id = await newThread();
    const release = await holdWriteLock(waitingDir);
    try {
      const first = timed(() => post(`/api/handoffs/${id}/entries`, { type: "progress", content: "first waiter" }));
      await settle(1_000);
      // Sent while the first write waits: each counts its wait from when it came, not from its turn.
      const second = timed(() => post(`/api/handoffs/${id}/entries`, { type: "progress", content: "second waiter" }));
      const reading = timed(() => fetch(`${waitingOrigin}/api/handoffs/${id}`));
      const options = await timed(withoutDatabase);
      expect(options.ms).toBeLessThan(1_000);
      for (const refused of [await first, await second]) {
        expect(refused.value.status).toBe(503);
        expect(((await refused.value.json()) as { error: { code: string } }).error.code).toBe("UNAVAILABLE");
        expect(refused.ms).toBeGreaterThan(WAIT_MS - 100);
        expect(refused.ms).toBeLessThan(WAIT_MS + 1_500);
      }
      const read = await reading;
      expect(read.value.status).toBe(200);
      expect(read.ms).toBeLessThan(WAIT_MS + 1_500);
    } finally {
      await release();
    }
    const thread = (await (await fetch(`${waitingOrigin}/api/handoffs/${id}`)).json()) as { entries: { content: string }[] };
    expect(thread.entries.map((entry) => entry.content)).toEqual(["first"]);
  });
});
