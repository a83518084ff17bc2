import { type ChildProcess, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBaton } from "./support/baton-command";
import { startHttpDoor, stopHttpDoor } from "./support/crash-rig";
import { temporaryFolders } from "./support/temp-folders";

/**
 * A data folder on a disk that fills up while Baton runs: every write is refused as the database
 * layer's Unavailable (503, the CLI's one line), saying the disk is full and that nothing was
 * stored, and works again once there is room. The disk is a 2 MiB tmpfs, which only root may
 * mount; the server is Baton's HTTP server in a process of its own (tests/support/serve-mcp-http.ts).
 */
const tempFolder = temporaryFolders("baton-full-disk-");
const mounted: string[] = [];
let door: ChildProcess | undefined;

afterAll(async () => {
  if (door) await stopHttpDoor(door, "SIGTERM");
  for (const folder of mounted.splice(0)) execFileSync("umount", [folder]);
});

/** Writes zeros into `file` until the disk it is on has no room left. */
function fillDisk(file: string): void {
  const chunk = Buffer.alloc(64 * 1024);
  const descriptor = fs.openSync(file, "w");
  try {
    for (;;) fs.writeSync(descriptor, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    fs.closeSync(descriptor);
  }
}

describe.skipIf(process.env.BATON_TEST_ENGINE === "postgres" || process.getuid?.() !== 0)("a data folder on a disk that fills up (SQLite, run as root)", () => {
  it("refuses each write with 503 and one line saying the disk is full, stores nothing, and writes again once there is room", { timeout: 120_000 }, async () => {
    const disk = tempFolder();
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m,mode=700", "tmpfs", disk]);
    mounted.push(disk);
    const dataFolder = path.join(disk, "data");
    fs.mkdirSync(dataFolder, { mode: 0o700 });
    // The test run's migrated database (tests/support/global-setup.ts).
    fs.copyFileSync(process.env.BATON_TEMPLATE_DB!, path.join(dataFolder, "baton.db"));
    const env = { BATON_DATA_DIR: dataFolder, DATABASE_URL: `file:${path.join(dataFolder, "baton.db")}` };
    const started = await startHttpDoor(env);
    door = started.door;
    const post = (title: string) =>
      fetch(`${started.origin}/api/handoffs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        // Text that takes new pages in the WAL, whatever room it had left.
        body: JSON.stringify({ title, content: randomBytes(30 * 1024).toString("hex") }),
      });
    expect((await post("Before the disk filled")).status).toBe(201);

    const filler = path.join(disk, "filler");
    fillDisk(filler);
    const refused = await post("While the disk is full");
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect([refused.status, body.error.code]).toEqual([503, "UNAVAILABLE"]);
    expect(body.error.message).toBe("the disk holding the database is full; nothing of this request was stored: free some space on it, then send the same request again");
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(started.stderr()).not.toContain("answered 500");

    const token = await runBaton(["token", "create", "--name", "desk", "--role", "operator"], { env });
    expect([token.code, token.stdout, token.stderr]).toEqual([1, "", "baton token: the disk holding the database is full; nothing of this request was stored: free some space on it, then send the same request again\n"]);

    fs.rmSync(filler);
    expect((await post("Once there is room")).status).toBe(201);
    const listed = (await (await fetch(`${started.origin}/api/handoffs`)).json()) as { items: { title: string }[] };
    expect(listed.items.map((handoff) => handoff.title).sort()).toEqual(["Before the disk filled", "Once there is room"]);
  });
});
