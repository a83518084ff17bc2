import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { addEntry, createHandoff, getHandoff } from "../lib/handoffs";
import { connectStdioClient } from "./support/mcp-clients";

/**
 * Staleness at the speed of a read (issue 19, point 5): the comparison is remembered per
 * repository and recorded state, and revalidated with what git itself would look at. Every git
 * process Baton starts is counted by a `git` first on PATH that logs its arguments and runs the
 * real one.
 */
const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
const folders: string[] = [];
let spawnLog = "";
let savedPath: string | undefined;

function tempFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "baton-stale-cache-"));
  folders.push(folder);
  return folder;
}

beforeAll(() => {
  const bin = tempFolder();
  spawnLog = path.join(bin, "spawns.log");
  fs.writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> "${spawnLog}"\nexec "${realGit}" "$@"\n`, { mode: 0o755 });
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
});

afterAll(() => {
  process.env.PATH = savedPath;
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

afterEach(() => fs.rmSync(spawnLog, { force: true }));

/** The git processes Baton started since the last call. */
function spawnsSinceLast(): string[] {
  const lines = fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, "utf8").split("\n").filter(Boolean) : [];
  fs.rmSync(spawnLog, { force: true });
  return lines;
}

/** The test's own git, not counted. */
function git(repo: string, ...args: string[]): string {
  return execFileSync(realGit, ["-c", "user.name=Baton Test", "-c", "user.email=test@baton.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: repo, encoding: "utf8" }).trim();
}

function commitFile(repo: string, file: string, content: string, message: string): void {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), content);
  git(repo, "add", file);
  git(repo, "commit", "-q", "-m", message);
}

function repository(): string {
  const repo = tempFolder();
  git(repo, "init", "-q", "-b", "main");
  commitFile(repo, "README.md", "# demo\n", "initial");
  commitFile(repo, "src/auth.ts", "export const a = 1;\n", "auth");
  commitFile(repo, "lib/token.ts", "export const t = 1;\n", "token");
  return repo;
}

async function handoffIn(repo: string, content: string): Promise<string> {
  const { handoff } = await createHandoff({ title: "Fix the login", content, asClient: "code", repoPath: repo });
  spawnsSinceLast();
  return handoff.id;
}

const staleness = async (id: string, repo: string) => (await getHandoff({ id, asClient: "chat", repoPath: repo })).staleness;

describe("staleness is remembered until the repository changes", () => {
  it("a second read of an unchanged repository runs no git process, moved on or current", async () => {
    const repo = repository();
    const current = await handoffIn(repo, "Look at src/auth.ts");
    const moved = await handoffIn(repo, "Token refresh in src/auth.ts");
    commitFile(repo, "src/auth.ts", "export const a = 2;\n", "Rework token refresh");
    commitFile(repo, "docs/notes.md", "notes\n", "Add notes");
    const fresh = await handoffIn(repo, "Look at src/auth.ts again");

    const first = await staleness(moved, repo);
    expect(first).toMatchObject({ commitsSince: 2, changedFiles: ["src/auth.ts"] });
    expect(spawnsSinceLast().length).toBeGreaterThan(0);
    for (let read = 0; read < 5; read++) expect(await staleness(moved, repo)).toEqual(first);
    expect(await staleness(fresh, repo)).toBeNull();
    spawnsSinceLast();
    expect(await staleness(fresh, repo)).toBeNull();
    expect(await staleness(moved, repo)).toEqual(first);
    expect(spawnsSinceLast()).toEqual([]);
    // The handoff recorded before both commits is stale too, and stays remembered.
    expect((await staleness(current, repo))?.commitsSince).toBe(2);
    await staleness(current, repo);
    spawnsSinceLast();
    await staleness(current, repo);
    expect(spawnsSinceLast()).toEqual([]);
  });

  it("an entry that names no new path leaves the comparison standing; one naming a changed file is compared in full", async () => {
    const repo = repository();
    const id = await handoffIn(repo, "Token refresh in src/auth.ts");
    commitFile(repo, "lib/token.ts", "export const t = 2;\n", "Token");
    const first = await staleness(id, repo);
    expect(first).toMatchObject({ commitsSince: 1, changedFiles: [] });
    spawnsSinceLast();
    await addEntry({ id, type: "progress", content: "Reviewed it, src/auth.ts still reads well.", asClient: "chat" });
    expect(await staleness(id, repo)).toBe(first);
    expect(spawnsSinceLast()).toEqual([]);
    await addEntry({ id, type: "question", content: "Did the change to lib/token.ts land?", asClient: "chat" });
    expect(await staleness(id, repo)).toMatchObject({ commitsSince: 1, changedFiles: ["lib/token.ts"] });
    expect(spawnsSinceLast().length).toBeGreaterThan(0);
  });

  it("a commit, a checkout, a git add and an edit of a named file are each seen by the next read, in full", async () => {
    const repo = repository();
    const id = await handoffIn(repo, "Token refresh in src/auth.ts; see token.ts");
    expect(await staleness(id, repo)).toBeNull();
    expect(await staleness(id, repo)).toBeNull();
    spawnsSinceLast();

    commitFile(repo, "docs/a.md", "a\n", "Add a");
    expect(await staleness(id, repo)).toMatchObject({ commitsSince: 1, changedFiles: [] });
    expect(spawnsSinceLast().length).toBeGreaterThan(0);

    git(repo, "checkout", "-q", "-b", "fix/y");
    expect((await staleness(id, repo))?.branch).toEqual({ from: "main", to: "fix/y", gone: false });

    // token.ts is named only by its file name: git add (the index) shows it.
    fs.writeFileSync(path.join(repo, "lib/token.ts"), "export const t = 2;\n");
    git(repo, "add", "lib/token.ts");
    expect((await staleness(id, repo))?.changedFiles).toEqual(["lib/token.ts"]);

    // src/auth.ts is named by its path: an edit not yet added is seen too.
    fs.writeFileSync(path.join(repo, "src/auth.ts"), "export const a = 3;\n");
    expect((await staleness(id, repo))?.changedFiles).toEqual(["lib/token.ts", "src/auth.ts"]);

    commitFile(repo, "lib/token.ts", "export const t = 2;\n", "Token");
    // A listed file the watch misses (token.ts), written within the file clock's lag of a comparison, is compared again once.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await staleness(id, repo)).toMatchObject({ commitsSince: 2, branch: { from: "main", to: "fix/y" } });
    spawnsSinceLast();
    await staleness(id, repo);
    expect(spawnsSinceLast()).toEqual([]);

    // Deleting the branch the handoff was written on packs nothing and touches only its ref.
    git(repo, "branch", "-q", "-D", "main");
    expect((await staleness(id, repo))?.branch).toEqual({ from: "main", to: "fix/y", gone: true });
  });

  it("a linked worktree is followed through its .git file, and its commits are seen", async () => {
    const repo = repository();
    const worktree = path.join(tempFolder(), "wt");
    git(repo, "worktree", "add", "-q", "-b", "side", worktree);
    const { handoff } = await createHandoff({ title: "t", content: "src/auth.ts", asClient: "code", repoPath: worktree });
    expect(await staleness(handoff.id, worktree)).toBeNull();
    spawnsSinceLast();
    expect(await staleness(handoff.id, worktree)).toBeNull();
    expect(spawnsSinceLast()).toEqual([]);
    commitFile(worktree, "src/auth.ts", "export const a = 9;\n", "In the worktree");
    expect(await staleness(handoff.id, worktree)).toMatchObject({ commitsSince: 1, changedFiles: ["src/auth.ts"] });
  });

  it("a folder outside any repository runs no git at all", async () => {
    const repo = repository();
    const id = await handoffIn(repo, "src/auth.ts");
    const outside = tempFolder();
    expect(await staleness(id, outside)).toBeNull();
    expect(await staleness(id, path.join(outside, "missing"))).toBeNull();
    expect(spawnsSinceLast()).toEqual([]);
  });
});

describe("an edit not yet added, seen through a remembered comparison", () => {
  type Staleness = { changed_files: string[] } | null;
  const readOver = async (client: Awaited<ReturnType<typeof connectStdioClient>>["client"], id: string) =>
    ((await client.callTool({ name: "get_handoff", arguments: { id } })) as unknown as { structuredContent: { staleness: Staleness } }).structuredContent.staleness;

  /** Over stdio in `folder`: the staleness a server that compared before `edit` answers after it, and one started after it. */
  async function rememberedAndFresh(folder: string, id: string, edit: () => void): Promise<{ before: Staleness; remembered: Staleness; fresh: Staleness }> {
    const reader = await connectStdioClient({ cwd: folder });
    let later: Awaited<ReturnType<typeof connectStdioClient>> | undefined;
    try {
      const before = await readOver(reader.client, id);
      edit();
      later = await connectStdioClient({ cwd: folder });
      return { before, fresh: await readOver(later.client, id), remembered: await readOver(reader.client, id) };
    } finally {
      await Promise.all([reader.client.close(), later?.client.close()]);
    }
  }

  it("over stdio in a package folder of a monorepo: a file named by its path from that folder", async () => {
    // Claude Code started in packages/web writes paths from there; git names the file from the top.
    const repo = repository();
    commitFile(repo, "packages/web/src/app.ts", "export const app = 1;\n", "web app");
    const web = path.join(repo, "packages", "web");
    const { handoff } = await createHandoff({ title: "Web app", content: "The entry point is src/app.ts", asClient: "code", repoPath: web });
    const seen = await rememberedAndFresh(web, handoff.id, () => fs.writeFileSync(path.join(web, "src", "app.ts"), "export const app = 2; // reworked\n"));
    expect(seen.before).toBeNull();
    expect(seen.fresh?.changed_files).toEqual(["packages/web/src/app.ts"]);
    expect(seen.remembered).toEqual(seen.fresh);
  });

  it("over stdio: a file named last in a thread that names many", async () => {
    const repo = repository();
    const { handoff } = await createHandoff({ title: "Docs pass", content: `Reviewed ${Array.from({ length: 60 }, (_, n) => `docs/page${n}.md`).join(", ")}.`, asClient: "code", repoPath: repo });
    await addEntry({ id: handoff.id, type: "progress", content: "Now on src/auth.ts", asClient: "code" });
    const seen = await rememberedAndFresh(repo, handoff.id, () => fs.writeFileSync(path.join(repo, "src/auth.ts"), "export const a = 2; // reworked\n"));
    expect(seen.before).toBeNull();
    expect(seen.fresh?.changed_files).toEqual(["src/auth.ts"]);
    expect(seen.remembered).toEqual(seen.fresh);
  });

  it("over stdio in a linked worktree: the recorded commit fetched from another worktree of the repository", async () => {
    // The writer pushed from its own clone; the reader's worktree lacked the commit until a fetch in the main one.
    const origin = tempFolder();
    git(origin, "init", "-q", "--bare", "-b", "main");
    const writer = tempFolder();
    git(writer, "clone", "-q", origin, ".");
    commitFile(writer, "src/auth.ts", "export const a = 1;\n", "auth");
    git(writer, "push", "-q", "origin", "main");
    const reader = tempFolder();
    git(reader, "clone", "-q", origin, ".");
    const worktree = path.join(tempFolder(), "wt");
    git(reader, "worktree", "add", "-q", "-b", "side", worktree);
    commitFile(writer, "src/auth.ts", "export const a = 2;\n", "Rework auth");
    git(writer, "push", "-q", "origin", "main");
    const { handoff } = await createHandoff({ title: "Auth", content: "Reworked src/auth.ts", asClient: "code", repoPath: writer });
    const seen = await rememberedAndFresh(worktree, handoff.id, () => git(reader, "fetch", "-q"));
    expect(seen.before).toMatchObject({ head_missing: true });
    expect(seen.fresh).toMatchObject({ head_missing: false });
    expect(seen.remembered).toEqual(seen.fresh);
  });

  it("over stdio: an edit it listed, to a file named only by its bare name, undone", async () => {
    const repo = repository();
    const { handoff } = await createHandoff({ title: "Tokens", content: "Refresh lives in token.ts", asClient: "code", repoPath: repo });
    fs.writeFileSync(path.join(repo, "lib/token.ts"), "export const t = 2; // trying\n");
    const seen = await rememberedAndFresh(repo, handoff.id, () => fs.writeFileSync(path.join(repo, "lib/token.ts"), "export const t = 1;\n"));
    expect(seen.before?.changed_files).toEqual(["lib/token.ts"]);
    expect(seen.fresh).toBeNull();
    expect(seen.remembered).toEqual(seen.fresh);
  });

  it("over stdio: repo_path naming a package folder through a symbolic link, alone or inside another repository", async () => {
    // git finds the repository above the link's target, as the writer's git did, whatever lies above the link.
    const repo = repository();
    commitFile(repo, "packages/web/src/app.ts", "export const app = 1;\n", "web app");
    const alone = path.join(tempFolder(), "web");
    const outer = repository();
    const inside = path.join(outer, "web");
    for (const link of [alone, inside]) fs.symlinkSync(path.join(repo, "packages", "web"), link);
    const { handoff } = await createHandoff({ title: "Web app", content: "The entry point is src/app.ts", asClient: "code", repoPath: alone });
    const reader = await connectStdioClient();
    const read = async (link: string) =>
      ((await reader.client.callTool({ name: "get_handoff", arguments: { id: handoff.id, repo_path: link } })) as unknown as { structuredContent: { staleness: unknown } }).structuredContent.staleness;
    try {
      expect(await read(inside)).toBeNull();
      commitFile(repo, "packages/web/src/app.ts", "export const app = 2;\n", "Rework the app");
      for (const link of [inside, alone]) expect(await read(link)).toMatchObject({ commits_since: 1, changed_files: ["packages/web/src/app.ts"] });
    } finally {
      await reader.client.close();
    }
  });
});
