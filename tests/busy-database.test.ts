import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase } from "../lib/database";
import { createHandoff, getHandoff } from "../lib/handoffs";
import { runBaton } from "./support/baton-command";
import { startHttpDoor, stopHttpDoor } from "./support/crash-rig";
import { holdSqliteLock } from "./support/sqlite-lock";
import { connectHttpClient, connectStdioClient } from "./support/mcp-clients";

/**
 * A SQLite database another process keeps locked past Baton's wait, at every door: the REST API
 * and MCP over HTTP (the HTTP door as its own process), `baton mcp` over stdio, and the CLI. Each
 * refuses as Unavailable (503 with Retry-After, a tool error, exit 1 in one line), logs no stack,
 * and stores nothing. The wait is shortened with BATON_BUSY_TIMEOUT_MS.
 */
const onSqlite = process.env.BATON_TEST_ENGINE !== "postgres";
const SHORT_WAIT = { BATON_BUSY_TIMEOUT_MS: "300" };
const BUSY_MESSAGE = String.raw`the database is busy: another process kept it locked for the 300 ms Baton waits \(.*\); nothing of this request was stored; send the same request again in a moment`;
const BUSY = new RegExp(`^${BUSY_MESSAGE}$`);

const toolText = (result: Awaited<ReturnType<Awaited<ReturnType<typeof connectStdioClient>>["client"]["callTool"]>>) =>
  (result.content as { type: string; text: string }[]).map((part) => part.text).join("");

describe.runIf(onSqlite)("a database busy past the wait", () => {
  let id: string;
  let door: Awaited<ReturnType<typeof startHttpDoor>>;
  beforeAll(async () => {
    id = (await createHandoff({ title: "Busy", content: "first" })).handoff.id;
    door = await startHttpDoor(SHORT_WAIT);
  }, 60_000);
  afterAll(async () => {
    if (door) await stopHttpDoor(door.door, "SIGTERM");
  });

  it("a write refused at every door as Unavailable: REST 503 with Retry-After, an MCP tool error over HTTP and stdio, the CLI's one line (exit 1); nothing stored, no stack logged; a search with entries to index first alike", async () => {
    const stdio = await connectStdioClient({ env: SHORT_WAIT });
    const http = await connectHttpClient(`${door.origin}/api/mcp`);
    const holder = await holdSqliteLock("write");
    try {
      const rest = await fetch(`${door.origin}/api/handoffs/${id}/entries`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "progress", content: "over REST" }) });
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toBe("2");
      const { error } = (await rest.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("UNAVAILABLE");
      expect(error.message).toMatch(BUSY);

      // The thread's first entry waits for the search index's next batch: a search indexes it
      // first, a write the lock holds back, so it is refused alike rather than missing the entry.
      const search = await fetch(`${door.origin}/api/handoffs?q=first`);
      expect(search.status).toBe(503);
      expect(search.headers.get("retry-after")).toBe("2");
      expect(((await search.json()) as { error: { message: string } }).error.message).toMatch(BUSY);

      for (const client of [http, stdio.client]) {
        const result = await client.callTool({ name: "add_to_handoff", arguments: { id, type: "progress", content: "over MCP" } });
        expect(result.isError).toBe(true);
        expect(toolText(result)).toMatch(BUSY);
      }

      const cli = await runBaton(["close", id], { env: SHORT_WAIT });
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(new RegExp(`^baton close: ${BUSY_MESSAGE}\n$`));
    } finally {
      await holder.release();
      await http.close();
      await stdio.client.close();
    }
    expect(stdio.stderr()).not.toMatch(/failed|^\s+at /m);
    expect(door.stderr()).not.toMatch(/failed|^\s+at /m);
    const thread = await getHandoff({ id });
    expect(thread.entries.map((entry) => entry.content)).toEqual(["first"]);
    expect(thread.handoff.status).not.toBe("completed");
    // Let go, the search indexes the entry and finds it; with nothing pending, a search under the lock reads on.
    const found = (await (await fetch(`${door.origin}/api/handoffs?q=first`)).json()) as { items: { id: string }[] };
    expect(found.items.map((item) => item.id)).toEqual([id]);
    const heldAgain = await holdSqliteLock("write");
    try {
      const again = await fetch(`${door.origin}/api/handoffs?q=first`);
      expect(again.status).toBe(200);
    } finally {
      await heldAgain.release();
    }
  }, 60_000);

  it("a server's first write waiting for the lock leaves it answering: a ping meanwhile is answered at once, the write refused after its wait", async () => {
    const wait = 3000;
    const stdio = await connectStdioClient({ env: { BATON_BUSY_TIMEOUT_MS: String(wait) } });
    const holder = await holdSqliteLock("write");
    try {
      const started = performance.now();
      const write = stdio.client.callTool({ name: "add_to_handoff", arguments: { id, type: "progress", content: "first write of this process" } });
      // Its turn: the write has reached the database and met the lock.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await stdio.client.ping();
      const pingedAfter = performance.now() - started;
      const result = await write;
      const refusedAfter = performance.now() - started;
      expect(result.isError).toBe(true);
      expect(toolText(result)).toMatch(/^the database is busy: another process kept it locked for the 3 s Baton waits/);
      // SQLite's own busy handler sleeps in the thread that runs JavaScript: the ping waited out the whole write.
      expect(pingedAfter).toBeLessThan(wait / 2);
      expect(refusedAfter).toBeGreaterThanOrEqual(wait - 100);
    } finally {
      await holder.release();
      await stdio.client.close();
    }
  }, 60_000);

  it("the CLI says a busy database is busy, not that the input was refused (close, export, import); a bad input is still refused", async () => {
    const document = await runBaton(["export", id, "--format", "json"]);
    expect(document.code, document.stderr).toBe(0);
    const badInput = await runBaton(["close", "hof_nosuchhandoffxxxxxxx"], { env: SHORT_WAIT });
    expect(badInput.code).toBe(1);
    expect(badInput.stderr).toMatch(/^baton close: refused; nothing was changed:\n {2}.+\n$/);
    const badFormat = await runBaton(["export", id, "--format", "pdf"], { env: SHORT_WAIT });
    expect(badFormat.code).toBe(1);
    expect(badFormat.stderr).toMatch(/^baton export: refused:\n {2}.+\n$/);
    const holder = await holdSqliteLock("write");
    try {
      const busy = [
        await runBaton(["close", id, "--archive"], { env: SHORT_WAIT }),
        // A bundle is recorded as an artifact: a write, which the lock holds back.
        await runBaton(["export", id, "--format", "bundle"], { env: SHORT_WAIT }),
        await runBaton(["import", "-"], { env: SHORT_WAIT, input: document.stdout }),
      ];
      for (const [ran, command] of busy.map((ran, at) => [ran, ["close", "export", "import"][at]] as const)) {
        expect(ran.code, ran.stderr).toBe(1);
        expect(ran.stderr).toMatch(new RegExp(`^baton ${command}: ${BUSY_MESSAGE}\n$`));
        expect(ran.stderr).not.toMatch(/refused/);
      }
    } finally {
      await holder.release();
    }
    const thread = await getHandoff({ id });
    expect(thread.handoff.status).not.toBe("completed");
  }, 60_000);

  it("baton checkpoint --push says the checkpoint was saved though its push met a busy database", async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), "baton-busy-checkpoint-"));
    try {
      execFileSync("git", ["init", "-q", repo]);
      const holder = await holdSqliteLock("write");
      let ran;
      try {
        ran = await runBaton(["checkpoint", "--goal", "Ship auth", "--now", "Writing auth.py", "--push"], { cwd: repo, env: SHORT_WAIT });
      } finally {
        await holder.release();
      }
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(new RegExp(`^baton checkpoint: the checkpoint was saved to \\.flow-guardian/handoff\\.yaml, but not pushed to Baton: ${BUSY_MESSAGE}\n$`));
      expect(fs.readFileSync(path.join(repo, ".flow-guardian", "handoff.yaml"), "utf8")).toContain("Writing auth.py");
      expect(fs.existsSync(path.join(repo, ".flow-guardian", "baton.json"))).toBe(false);
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  }, 60_000);

  it("a read that meets a database locked whole is refused alike: REST 503 with Retry-After, an MCP tool error", async () => {
    // The lock on the whole file can be taken only while no connection is open: the door and this process close theirs.
    await stopHttpDoor(door.door, "SIGTERM");
    await closeDatabase();
    const holder = await holdSqliteLock("whole");
    try {
      door = await startHttpDoor(SHORT_WAIT);
      const http = await connectHttpClient(`${door.origin}/api/mcp`);
      try {
        const rest = await fetch(`${door.origin}/api/handoffs/${id}`);
        expect(rest.status).toBe(503);
        expect(rest.headers.get("retry-after")).toBe("2");
        expect(((await rest.json()) as { error: { message: string } }).error.message).toMatch(BUSY);
        const result = await http.callTool({ name: "get_handoff", arguments: { id } });
        expect(result.isError).toBe(true);
        expect(toolText(result)).toMatch(BUSY);
        // A credential is checked against the database before any route: its check meets the lock
        // too, and is refused alike (it was "Baton could not check this request", no Retry-After,
        // and a stack in the log), on the REST door and, in JSON-RPC's shape, on /api/mcp.
        const bearer = { authorization: `Bearer baton_${"A".repeat(43)}` };
        const checked = await fetch(`${door.origin}/api/handoffs/${id}`, { headers: bearer });
        expect(checked.status).toBe(503);
        expect(checked.headers.get("retry-after")).toBe("2");
        expect((await checked.json()) as unknown).toEqual({ error: { code: "UNAVAILABLE", message: expect.stringMatching(BUSY) } });
        const mcpChecked = await fetch(`${door.origin}/api/mcp`, {
          method: "POST",
          headers: { ...bearer, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        expect(mcpChecked.status).toBe(503);
        expect(mcpChecked.headers.get("retry-after")).toBe("2");
        expect((await mcpChecked.json()) as unknown).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: expect.stringMatching(BUSY) }, id: null });
      } finally {
        await http.close();
      }
    } finally {
      await holder.release();
    }
    expect(door.stderr()).not.toMatch(/failed|^\s+at /m);
    // Let go, the same request is answered.
    expect((await fetch(`${door.origin}/api/handoffs/${id}`)).status).toBe(200);
  }, 60_000);
});
