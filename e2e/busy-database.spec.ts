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

/** Another process holding the write lock (BEGIN IMMEDIATE) until released. */
async function holdWriteLock(): Promise<() => Promise<void>> {
  const holder = spawn(
    process.execPath,
    ["-e", `const db = new (require("better-sqlite3"))(process.argv[1]); db.exec("BEGIN IMMEDIATE"); process.stdout.write("held\\n"); process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); }).resume();`, path.join(dataDir, "baton.db")],
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
