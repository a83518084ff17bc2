import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { databaseUrl } from "../lib/config";
import { closeDatabase, engineOf, write } from "../lib/database";
import { closeHandoff, exportHandoff, findProjectRoot, getProvenance } from "../lib/formats";
import { findHandoffs, getHandoff } from "../lib/handoffs";
import { rowsOf } from "./support/rows";
import { holdSqliteLock, type SqliteLock } from "./support/sqlite-lock";

const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const temporary: string[] = [];

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  temporary.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
});

/** `npx baton checkpoint …` as a user runs it: a separate process, on this test's data folder. */
function baton(cwd: string, args: string[], input = "", env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env }, input, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function gitRepo(): string {
  const repo = tempDir("baton-checkpoint-");
  const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { stdio: "ignore" });
  git("init", "-q", "-b", "fix/jwt-expiry");
  fs.mkdirSync(path.join(repo, "src", "deep"), { recursive: true });
  fs.writeFileSync(path.join(repo, "README.md"), "repo\n");
  git("add", "README.md");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init");
  fs.writeFileSync(path.join(repo, "src", "auth.py"), "def check(): ...\n");
  return repo;
}

const readHandoff = (repo: string) => parseYaml(fs.readFileSync(path.join(repo, ".flow-guardian", "handoff.yaml"), "utf8")) as Record<string, unknown>;

describe("npx baton checkpoint", () => {
  it("refuses to write a handoff.yaml past 1 MiB, which it could not read again, and leaves the file as it was", () => {
    const repo = gitRepo();
    fs.mkdirSync(path.join(repo, ".flow-guardian"));
    const file = path.join(repo, ".flow-guardian", "handoff.yaml");
    // 0.9 MB of flow lists written again in block style came to 1.8 MB, and every later checkpoint failed to read it.
    // Within the 10,000 nodes Baton reads: 27 KB of lists nested 60 deep are 1.1 MB once indented.
    const original = `goal: Ship auth\nstatus: in_progress\nnow: Debugging token expiry\ntimestamp: 2026-01-17T10:30:00Z\nseen: ${"[".repeat(60)}${Array(9_000).fill("x").join(", ")}${"]".repeat(60)}\n`;
    fs.writeFileSync(file, original);
    const refused = baton(repo, ["checkpoint", "--now", "Fixing the comparison"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/handoff\.yaml would be larger than 1 MiB once written \(\d+ bytes\), more than Baton reads; shorten it, nothing was overwritten/);
    expect(fs.readFileSync(file, "utf8")).toBe(original);
  });

  it("refuses a handoff.yaml that is not UTF-8 and leaves its bytes as they were", () => {
    const repo = gitRepo();
    fs.mkdirSync(path.join(repo, ".flow-guardian"));
    const file = path.join(repo, ".flow-guardian", "handoff.yaml");
    // Read leniently, each accented letter came back as U+FFFD in the file the checkpoint rewrote.
    const latin1 = Buffer.from('goal: "Impl\u00e9ment JWT auth"\nstatus: in_progress\nnow: "Debugging token expiry"\ntimestamp: 2026-01-17T10:30:00Z\n', "latin1");
    fs.writeFileSync(file, latin1);
    const refused = baton(repo, ["checkpoint", "--now", "Fixing the comparison", "--push"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/handoff\.yaml is not UTF-8 text; save it as UTF-8/);
    expect(fs.readFileSync(file).equals(latin1)).toBe(true);
    expect(fs.existsSync(path.join(repo, ".flow-guardian", "baton.json"))).toBe(false);
  });

  it("creates, then merges .flow-guardian/handoff.yaml at the project root, per the seed's rules", async () => {
    const repo = gitRepo();
    const inner = path.join(repo, "src", "deep");

    const refused = baton(inner, ["checkpoint", "--now", "Debugging token expiry"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("goal: is required");
    expect(fs.existsSync(path.join(repo, ".flow-guardian"))).toBe(false);

    const saved = baton(inner, ["checkpoint", "--goal", "Implement user authentication with JWT", "--now", "Debugging token expiry in auth.py"]);
    expect(saved.stderr).toBe("");
    expect(saved.status).toBe(0);
    expect(saved.stdout).toMatch(/^saved .*\.flow-guardian\/handoff\.yaml \(in_progress, /);
    const first = readHandoff(repo);
    expect(first).toMatchObject({
      goal: "Implement user authentication with JWT",
      status: "in_progress",
      now: "Debugging token expiry in auth.py",
      files: ["src/auth.py"],
      branch: "fix/jwt-expiry",
    });
    expect(Date.parse(first.timestamp as string)).not.toBeNaN();
    expect(Object.keys(first).slice(0, 3)).toEqual(["goal", "status", "now"]);

    await new Promise((resolve) => setTimeout(resolve, 20));
    const updated = baton(repo, ["checkpoint", "--now", "Fixing the comparison", "--hypothesis", "Off-by-one in the expiry check"]);
    expect(updated.status).toBe(0);
    expect(updated.stdout).toMatch(/^updated /);
    const second = readHandoff(repo);
    expect(second).toMatchObject({
      goal: "Implement user authentication with JWT",
      status: "in_progress",
      now: "Fixing the comparison",
      hypothesis: "Off-by-one in the expiry check",
      files: ["src/auth.py"],
      branch: "fix/jwt-expiry",
    });
    expect(Date.parse(second.timestamp as string)).toBeGreaterThan(Date.parse(first.timestamp as string));

    // An update with nothing new still refreshes the timestamp; a bad status is named and changes nothing.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(baton(repo, ["checkpoint"]).status).toBe(0);
    const third = readHandoff(repo);
    expect(Date.parse(third.timestamp as string)).toBeGreaterThan(Date.parse(second.timestamp as string));
    const badStatus = baton(repo, ["checkpoint", "--status", "done"]);
    expect(badStatus.status).toBe(1);
    expect(badStatus.stderr).toContain("status: must be one of in_progress, completed, blocked");
    expect(readHandoff(repo)).toEqual(third);
  });

  it("--push mirrors into one Baton thread: a new thread first, then an entry per checkpoint", async () => {
    const repo = gitRepo();
    const first = baton(repo, ["checkpoint", "--goal", "Ship auth", "--now", "Writing auth.py", "--push", "--project", "hlg"]);
    expect(first.status).toBe(0);
    const id = first.stdout.match(/pushed to new handoff (hof_\S+)/)?.[1];
    expect(id).toBeTruthy();
    expect(JSON.parse(fs.readFileSync(path.join(repo, ".flow-guardian", "baton.json"), "utf8"))).toEqual({ handoffId: id });

    const second = baton(repo, ["checkpoint", "--now", "Testing the expiry", "--outcome", "fixed", "--push"]);
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`pushed to handoff ${id} as entry #\\d+`));
    const thread = await getHandoff({ id: id! });
    expect(thread.handoff.project).toBe("hlg");
    expect(thread.entries.at(-1)).toMatchObject({ type: "progress", fromClient: "code" });
    expect(thread.entries.at(-1)!.content).toContain("**Now:** Testing the expiry");
    const provenance = await getProvenance({ id: id! });
    expect(provenance.source).toMatchObject({ format: "handoff_yaml", fileName: ".flow-guardian/handoff.yaml" });
    expect(provenance.source?.metadata.checkpoints).toBe(2);
    const exported = await exportHandoff({ id: id!, format: "yaml" });
    expect(parseYaml(exported.text)).toEqual(readHandoff(repo));
  });

  it("--push on a completed handoff refuses as add_to_handoff does, stores nothing, and --new starts another", async () => {
    const repo = gitRepo();
    const first = baton(repo, ["checkpoint", "--goal", "Ship auth", "--now", "Writing auth.py", "--push"]);
    const id = first.stdout.match(/pushed to new handoff (hof_\S+)/)![1];
    await closeHandoff({ id });
    const handoffsBefore = (await findHandoffs()).total;

    const refused = baton(repo, ["checkpoint", "--now", "After the close", "--push"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`handoff ${id} is completed; entries can no longer be added (start a new handoff to go on)`);
    expect(refused.stderr).toContain("`baton checkpoint --push --new` mirrors this checkpoint into a new handoff");
    expect((await findHandoffs()).total).toBe(handoffsBefore);
    expect(JSON.parse(fs.readFileSync(path.join(repo, ".flow-guardian", "baton.json"), "utf8"))).toEqual({ handoffId: id });

    const fresh = baton(repo, ["checkpoint", "--now", "After the close", "--push", "--new"]);
    expect(fresh.status).toBe(0);
    const newId = fresh.stdout.match(/pushed to new handoff (hof_\S+)/)![1];
    expect(newId).not.toBe(id);
    expect(JSON.parse(fs.readFileSync(path.join(repo, ".flow-guardian", "baton.json"), "utf8"))).toEqual({ handoffId: newId });
  });

  it("baton close closes a handoff, keeping a bundle with --archive, and refuses a bad id", async () => {
    const repo = gitRepo();
    const first = baton(repo, ["checkpoint", "--goal", "Ship auth", "--now", "Writing auth.py", "--push"]);
    const id = first.stdout.match(/pushed to new handoff (hof_\S+)/)![1];
    const closed = baton(repo, ["close", id, "--archive"]);
    expect(closed.status).toBe(0);
    const artifactId = closed.stdout.match(new RegExp(`^closed ${id}; kept bundle ([0-9a-f]{64})$`, "m"))?.[1];
    expect(artifactId).toBeDefined();
    expect((await getProvenance({ id })).keptBundle?.id).toBe(artifactId);
    expect((await getHandoff({ id })).handoff.status).toBe("completed");
    const bad = baton(repo, ["close", "hof_nope"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("is not a handoff ID");
  });

  it("reads a Claude Code hook's JSON (session id, cwd) and never overwrites an unreadable file", () => {
    const repo = gitRepo();
    expect(baton(repo, ["checkpoint", "--goal", "g", "--now", "n"]).status).toBe(0);
    const elsewhere = tempDir("baton-hook-cwd-");
    const hook = baton(elsewhere, ["checkpoint", "--hook"], JSON.stringify({ session_id: "abc123", cwd: repo, hook_event_name: "PreCompact", trigger: "auto" }));
    expect(hook.status).toBe(0);
    expect(readHandoff(repo).session_id).toBe("abc123");

    const file = path.join(repo, ".flow-guardian", "handoff.yaml");
    fs.writeFileSync(file, "goal: [unclosed\n");
    const refused = baton(repo, ["checkpoint", "--now", "x"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/cannot be read \(invalid YAML/);
    expect(fs.readFileSync(file, "utf8")).toBe("goal: [unclosed\n");
  });

  it("as a hook in a project never checkpointed by hand, says there is nothing to update and exits 0, writing and pushing nothing", async () => {
    const repo = gitRepo();
    const before = (await findHandoffs({ perPage: 200 })).total;
    const hook = baton(repo, ["checkpoint", "--hook", "--push"], JSON.stringify({ session_id: "fresh", cwd: repo, hook_event_name: "PreCompact", trigger: "auto" }));
    // It failed every compaction with 'goal: is required' and exit 1.
    expect(hook.status, hook.stderr).toBe(0);
    expect(hook.stderr).toBe(
      "baton checkpoint: this project has no .flow-guardian/handoff.yaml yet, so the hook has nothing to update; run `baton checkpoint --goal … --now …` once to start one\n",
    );
    expect(fs.existsSync(path.join(repo, ".flow-guardian"))).toBe(false);
    expect((await findHandoffs({ perPage: 200 })).total).toBe(before);
  });

  it("never reads or writes through a link a cloned repository planted in .flow-guardian/ (PreCompact runs it in any repository)", async () => {
    const hookInput = (repo: string) => JSON.stringify({ session_id: "s-links", cwd: repo, hook_event_name: "PreCompact", trigger: "auto" });
    const plainCheckpoint = "goal: build it\nstatus: in_progress\nnow: step one\ntimestamp: 2026-11-28T10:00:00Z\n";
    const outside = tempDir("baton-checkpoint-home-");
    const bashrc = path.join(outside, ".bashrc");
    fs.writeFileSync(bashrc, "export IMPORTANT=1\n");
    const otherYaml = path.join(outside, "config.yaml");
    fs.writeFileSync(otherYaml, plainCheckpoint);
    const handoffsBefore = (await findHandoffs({})).total;

    // baton.json pointing at a dotfile: the checkpoint once overwrote it with {"handoffId": …}.
    const mirrorLink = gitRepo();
    fs.mkdirSync(path.join(mirrorLink, ".flow-guardian"));
    fs.writeFileSync(path.join(mirrorLink, ".flow-guardian", "handoff.yaml"), plainCheckpoint);
    fs.symlinkSync(bashrc, path.join(mirrorLink, ".flow-guardian", "baton.json"));
    // handoff.yaml pointing at another program's YAML, which it would have rewritten and pushed.
    const yamlLink = gitRepo();
    fs.mkdirSync(path.join(yamlLink, ".flow-guardian"));
    fs.symlinkSync(otherYaml, path.join(yamlLink, ".flow-guardian", "handoff.yaml"));
    // handoff.yaml pointing at a device that never ends: it was read until memory ran out.
    const endless = gitRepo();
    fs.mkdirSync(path.join(endless, ".flow-guardian"));
    fs.symlinkSync("/dev/zero", path.join(endless, ".flow-guardian", "handoff.yaml"));
    // The folder itself a link: files would land outside the project.
    const folderLink = gitRepo();
    fs.symlinkSync(outside, path.join(folderLink, ".flow-guardian"));

    for (const [repo, reason] of [
      [mirrorLink, "baton.json is a symbolic link"],
      [yamlLink, "handoff.yaml is a symbolic link"],
      [endless, "handoff.yaml is a symbolic link"],
      [folderLink, ".flow-guardian is a symbolic link"],
    ] as const) {
      const ran = baton(repo, ["checkpoint", "--hook", "--push"], hookInput(repo));
      expect(ran.status, ran.stderr).toBe(1);
      expect(ran.stderr).toContain(reason);
      expect(ran.stderr).not.toMatch(/\n\s+at /);
    }
    expect(fs.readFileSync(bashrc, "utf8")).toBe("export IMPORTANT=1\n");
    expect(fs.readFileSync(otherYaml, "utf8")).toBe(plainCheckpoint);
    expect(fs.readdirSync(outside).sort()).toEqual([".bashrc", "config.yaml"]);
    expect(fs.readFileSync(path.join(mirrorLink, ".flow-guardian", "handoff.yaml"), "utf8")).toBe(plainCheckpoint);
    expect((await findHandoffs({})).total).toBe(handoffsBefore);

    // A plain folder is written as before, whole, with nothing left beside the files.
    fs.rmSync(path.join(mirrorLink, ".flow-guardian", "baton.json"));
    const pushed = baton(mirrorLink, ["checkpoint", "--hook", "--push", "--now", "step two"], hookInput(mirrorLink));
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(fs.readdirSync(path.join(mirrorLink, ".flow-guardian")).sort()).toEqual(["baton.json", "handoff.yaml"]);
    expect(readHandoff(mirrorLink)).toMatchObject({ goal: "build it", now: "step two" });
  });

  it("reads git with the options that keep a repository's own config from running programs (core.fsmonitor)", () => {
    const repo = gitRepo();
    const marker = path.join(tempDir("baton-checkpoint-marker-"), "ran");
    execFileSync("git", ["-C", repo, "config", "core.fsmonitor", `touch '${marker}'; false`]);
    const saved = baton(repo, ["checkpoint", "--goal", "g", "--now", "n"]);
    expect(saved.status, saved.stderr).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    // git was still read: the branch and the uncommitted file.
    expect(readHandoff(repo)).toMatchObject({ branch: "fix/jwt-expiry", files: ["src/auth.py"] });
  });

  it("runs no filter driver of the repository's config (filter.x.clean on a racily clean file)", () => {
    const repo = gitRepo();
    const marker = path.join(tempDir("baton-checkpoint-marker-"), "ran");
    fs.writeFileSync(path.join(repo, ".gitattributes"), "*.txt filter=x\n");
    fs.writeFileSync(path.join(repo, "notes.txt"), "one\n");
    execFileSync("git", ["-C", repo, "add", ".gitattributes", "notes.txt"]);
    execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "notes"]);
    execFileSync("git", ["-C", repo, "config", "filter.x.clean", `touch '${marker}'; cat`]);
    // The file and the index share one time: git cannot trust the stat, so it hashes the file (through its filter).
    const sameTime = new Date("2026-01-01T00:00:00Z");
    fs.utimesSync(path.join(repo, "notes.txt"), sameTime, sameTime);
    fs.utimesSync(path.join(repo, ".git", "index"), sameTime, sameTime);
    const saved = baton(repo, ["checkpoint", "--goal", "g", "--now", "n"]);
    expect(saved.status, saved.stderr).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    expect(readHandoff(repo)).toMatchObject({ branch: "fix/jwt-expiry", files: ["src/auth.py"] });
  });

  it("runs no filter driver of a submodule's own config either (git status looked into the submodule's files)", () => {
    const marker = path.join(tempDir("baton-checkpoint-marker-"), "ran");
    const library = tempDir("baton-checkpoint-library-");
    const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "protocol.file.allow=always", ...args], { cwd, stdio: "ignore" });
    git(library, "init", "-q");
    fs.writeFileSync(path.join(library, ".gitattributes"), "*.txt filter=y\n");
    fs.writeFileSync(path.join(library, "notes.txt"), "one\n");
    git(library, "add", ".");
    git(library, "commit", "-q", "-m", "library");
    const repo = gitRepo();
    git(repo, "submodule", "add", "-q", library, "lib");
    git(repo, "commit", "-q", "-m", "submodule");
    git(path.join(repo, "lib"), "config", "filter.y.clean", `touch '${marker}'; cat`);
    const sameTime = new Date("2026-01-01T00:00:00Z");
    fs.utimesSync(path.join(repo, "lib", "notes.txt"), sameTime, sameTime);
    fs.utimesSync(path.join(repo, ".git", "modules", "lib", "index"), sameTime, sameTime);
    const saved = baton(repo, ["checkpoint", "--goal", "g", "--now", "n"]);
    expect(saved.status, saved.stderr).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    expect(readHandoff(repo)).toMatchObject({ branch: "fix/jwt-expiry", files: ["src/auth.py"] });
  });

  it("refuses hook input past 1 MiB without reading on", () => {
    const repo = gitRepo();
    const ran = baton(repo, ["checkpoint", "--hook"], JSON.stringify({ cwd: repo, pad: "x".repeat(2 * 1024 * 1024) }));
    expect(ran.status).toBe(1);
    expect(ran.stderr).toContain("the hook input on standard input is over 1024 KiB");
    expect(fs.existsSync(path.join(repo, ".flow-guardian"))).toBe(false);
  });

  it("find_project_root takes the nearest .flow-guardian/, .git/, pyproject.toml or package.json, else the folder itself", () => {
    const top = tempDir("baton-root-");
    const nested = path.join(top, "a", "b", "c");
    fs.mkdirSync(nested, { recursive: true });
    expect(findProjectRoot(nested)).toBe(nested);
    fs.writeFileSync(path.join(top, "package.json"), "{}");
    expect(findProjectRoot(nested)).toBe(top);
    fs.writeFileSync(path.join(top, "a", "pyproject.toml"), "");
    expect(findProjectRoot(nested)).toBe(path.join(top, "a"));
    fs.mkdirSync(path.join(top, "a", "b", ".flow-guardian"));
    expect(findProjectRoot(nested)).toBe(path.join(top, "a", "b"));
  });
});

/**
 * Another process holding the SQLite file, with `mode`'s lock, until released: `exclusive` as a
 * sqlite3 shell in exclusive locking mode holds it (readers wait too; taken only while no
 * connection is open, so this process closes its own first), `write` as a writer in a long
 * transaction (an older server importing) holds the write lock.
 */
async function holdLock(mode: "exclusive" | "write"): Promise<SqliteLock> {
  await closeDatabase();
  return holdSqliteLock(mode === "exclusive" ? "whole" : "write");
}

/** The PreCompact hook as Claude Code runs it: `baton checkpoint --hook --push`, its JSON on stdin. */
function preCompact(repo: string, env: Record<string, string> = {}) {
  const started = performance.now();
  const ran = baton(repo, ["checkpoint", "--hook", "--push"], JSON.stringify({ session_id: `s-${started}`, cwd: repo, hook_event_name: "PreCompact", trigger: "auto" }), env);
  return { ...ran, seconds: (performance.now() - started) / 1000, sessionId: `s-${started}` };
}

/** Given up as a hook does: exit 0, one line saying the file was saved and why it was not pushed, no "send again". */
function expectSkipped(ran: ReturnType<typeof preCompact>, reason: RegExp) {
  expect(ran.status, ran.stderr).toBe(0);
  expect(ran.stderr.trim().split("\n"), ran.stderr).toHaveLength(1);
  expect(ran.stderr).toMatch(/^baton checkpoint: the checkpoint was saved to \.flow-guardian\/handoff\.yaml, but not pushed to Baton: /);
  expect(ran.stderr.trim()).toMatch(reason);
  expect(ran.stderr).not.toMatch(/send the same request again|BATON_DATA_DIR|\n\s+at /);
}

describe.runIf(engineOf(databaseUrl()) === "sqlite")("the PreCompact hook (checkpoint --hook --push) under a busy database", () => {
  it("keeps to 5 s and exits 0 with the file saved, whatever BATON_BUSY_TIMEOUT_MS says, with the database locked whole", async () => {
    const repo = gitRepo();
    const first = baton(repo, ["checkpoint", "--goal", "Ship auth", "--now", "Reading", "--push"]);
    expect(first.status, first.stderr).toBe(0);
    const lock = await holdLock("exclusive");
    try {
      for (const env of [{}, { BATON_BUSY_TIMEOUT_MS: "60000" }] as Record<string, string>[]) {
        const ran = preCompact(repo, env);
        expectSkipped(ran, /the database is busy: another process kept it locked .*; skipped, so the session is not held \(the next PreCompact hook pushes the checkpoint\)$/);
        expect(ran.seconds, JSON.stringify(env)).toBeLessThan(5);
        expect(readHandoff(repo).session_id).toBe(ran.sessionId);
      }
      // By hand it is a request like any other: it waits as long as it is told, then exit 1 and
      // "send again"; the file is saved first all the same, as a checkpoint by hand always is.
      const byHand = baton(repo, ["checkpoint", "--now", "By hand", "--push"], "", { BATON_BUSY_TIMEOUT_MS: "500" });
      expect(byHand.status).toBe(1);
      expect(byHand.stderr).toMatch(/the checkpoint was saved to \.flow-guardian\/handoff\.yaml, but not pushed to Baton: the database is busy: .*send the same request again in a moment/);
      expect(readHandoff(repo).now).toBe("By hand");
    } finally {
      await lock.release();
    }
    const pushed = preCompact(repo);
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/^pushed to handoff hof_\S+ as entry #\d+$/m);
  }, 180_000);
});

describe("the PreCompact hook (checkpoint --hook --push) on a database older than this baton", () => {
  it("never migrates it, with another process writing (SQLite): it waits briefly for another process to, then skips with the file saved", async () => {
    const repo = gitRepo();
    const first = baton(repo, ["checkpoint", "--goal", "Ship auth", "--now", "Reading", "--push"]);
    expect(first.status, first.stderr).toBe(0);
    // This baton is newer than the database: its latest migration is not applied there (rolled
    // back, as Prisma records one; a name this baton does not know would be a newer database's).
    const [{ name }] = await rowsOf<{ name: string }>("SELECT migration_name AS name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1");
    const rolledBack = (at: string | null) => write((tx) => tx.run("UPDATE _prisma_migrations SET rolled_back_at = ? WHERE migration_name = ?", [at, name]));
    await rolledBack(new Date().toISOString());
    // The older server goes on writing (a long import): on SQLite it holds the write lock.
    const writer = engineOf(databaseUrl()) === "sqlite" ? await holdLock("write") : null;
    try {
      const ran = preCompact(repo);
      expectSkipped(ran, /the Baton database is older than this baton \(1 migration to apply\); the MCP server, the dashboard or any other baton command applies them as it starts$/);
      expect(ran.seconds).toBeLessThan(5);
      expect(readHandoff(repo).session_id).toBe(ran.sessionId);
    } finally {
      await writer?.release();
      await rolledBack(null);
    }
    const pushed = preCompact(repo);
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/^pushed to handoff hof_\S+ as entry #\d+$/m);
  }, 180_000);
});

describe("npx baton import / export", () => {
  it("imports a file and prints the ID, exports it back, and names every bad field on refusal", () => {
    const dir = tempDir("baton-cli-");
    const good = path.join(dir, "handoff.yaml");
    fs.writeFileSync(good, "goal: Ship auth\nstatus: in_progress\nnow: Fix expiry in auth.py\nfiles: [src/auth.py]\ntimestamp: 2026-01-17T10:30:00Z\n");
    const imported = baton(dir, ["import", good]);
    expect(imported.status).toBe(0);
    const id = imported.stdout.trim();
    expect(id).toMatch(/^hof_[A-Za-z0-9_-]{21}$/);

    const out = path.join(dir, "out.yaml");
    const exported = baton(dir, ["export", id, "--format", "yaml", "--out", out]);
    expect(exported.status).toBe(0);
    expect(parseYaml(fs.readFileSync(out, "utf8"))).toEqual(parseYaml(fs.readFileSync(good, "utf8")));

    const bundle = baton(dir, ["export", id, "--format", "bundle"]);
    expect(bundle.status).toBe(0);
    expect(JSON.parse(bundle.stdout).refs.threads[0].thread_id).toBe(id);
    const artifactId = bundle.stderr.match(/artifact ([0-9a-f]{64})/)?.[1];
    const child = baton(dir, ["import", "--artifact", artifactId!]);
    expect(child.status).toBe(0);
    expect(child.stderr).toContain(`child of ${id}`);

    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ reason: "tired", current_story: { id: "US-1", title: "t", progress_percent: 140, status: "implementing" } }));
    const refused = baton(dir, ["import", bad]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("current_story.progress_percent: must be 0–100");
    expect(refused.stderr).toContain("reason: must be one of context_threshold, error, user_request");
    expect(refused.stderr).toContain("handoff_instruction: is required");
    expect(refused.stderr).toContain("work_in_progress: is required");

    const cut = baton(dir, ["export", id, "--format", "json", "--cut", "999999"]);
    expect(cut.status).toBe(1);
    expect(cut.stderr).toContain("cut: must be the seq of one of the thread's entries");
  });
});
