import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { write } from "../lib/database";
import { projectRoot } from "../lib/paths.mjs";
import { runBaton, runOf, type CommandRun } from "./support/baton-command";
import { countRows } from "./support/rows";

/**
 * An older Baton started against a database a newer Baton migrated (a downgraded package, a
 * Claude Code plugin pinning an older baton-desk beside a newer desk): it wrote rows as its own
 * schema had them (an older Baton stored every entry as #0 once entries were numbered). Each
 * process refuses it as it starts, in one line, storing nothing. Run as users run them: the CLI,
 * `baton mcp` and the hook through bin/baton.mjs, the server as `npm start` runs it.
 */
const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };
const NEWER = "29991231000000_from_a_newer_baton";
const refusal = new RegExp(
  `was migrated by a newer Baton \\(migration ${NEWER}, which this Baton ${version.replace(/\./g, "\\.")} does not know\\), whose rows this one would store wrongly; nothing was read or changed: run that newer Baton \\(npx baton at its latest version; for Claude Code, \`npx baton setup claude-code\` again, or update the plugin that pins this one\\)$`,
);

function expectOneLine(ran: CommandRun, prefix: string) {
  const lines = ran.stderr.trim().split("\n");
  expect(lines, ran.stderr).toHaveLength(1);
  expect(lines[0].startsWith(prefix), ran.stderr).toBe(true);
  expect(lines[0]).toMatch(refusal);
}

/** `npm start`'s server (scripts/serve.ts) on a free port, until it exits. */
function serve(): Promise<CommandRun> {
  return runOf(spawn(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/serve.ts"], { cwd: projectRoot, env: { ...process.env, HOST: "127.0.0.1", PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] }));
}

describe("a database a newer Baton migrated", () => {
  it("is refused in one line by the CLI, baton mcp, the hook and the server, and nothing is stored", { timeout: 120_000 }, async () => {
    const made = await runBaton(["token", "create", "--name", "before", "--role", "operator"]);
    expect(made.code, made.stderr).toBe(0);
    // What the newer Baton's migration leaves in _prisma_migrations, as `prisma migrate deploy` records it.
    await write((tx) =>
      tx.run("INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)", [
        "newer-baton",
        "0".repeat(64),
        new Date().toISOString(),
        NEWER,
        new Date().toISOString(),
      ]),
    );

    const token = await runBaton(["token", "create", "--name", "after", "--role", "operator"]);
    expect([token.code, token.stdout]).toEqual([1, ""]);
    expectOneLine(token, "baton token: the database ");
    expect(await countRows("access_tokens")).toBe(1);

    const mcp = await runBaton(["mcp"]);
    expect([mcp.code, mcp.stdout]).toEqual([1, ""]);
    expectOneLine(mcp, "baton mcp: the database ");

    const server = await serve();
    expect(server.code, server.stdout).toBe(1);
    expectOneLine(server, "baton: the database ");

    // A hook never holds the session: exit 0, saying why it did nothing.
    const hook = await runBaton(["hook", "session-start"], { input: JSON.stringify({ session_id: "s", cwd: projectRoot, hook_event_name: "SessionStart", source: "startup" }) });
    expect([hook.code, hook.stdout]).toEqual([0, ""]);
    expect(hook.stderr).toMatch(/was migrated by a newer Baton \(migration 29991231000000_from_a_newer_baton/);
  });
});
