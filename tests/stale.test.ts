import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { registerAgent, triggerHandoff, getShiftDocument } from "../lib/agents";
import { importDocument } from "../lib/formats/import-document";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { compareWithRepository, readGitState, withoutCredentials } from "../lib/git";
import { gitStateForWrite } from "../lib/git/read-state";
import { isNamed, mentionedPaths } from "../lib/git/mentions";
import { addEntry, createHandoff, getHandoff, gitReportOf } from "../lib/handoffs";
import { createMcpServer } from "../lib/mcp/create-server";
import { read } from "../lib/database";
import { connectStdioClient } from "./support/mcp-clients";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), "baton-stale-"));
  folders.push(folder);
  return folder;
}

function git(repo: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Baton Test", "-c", "user.email=test@baton.invalid", "-c", "commit.gpgsign=false", ...args], {
    cwd: repo,
    encoding: "utf8",
  }).trim();
}

function commitFile(repo: string, file: string, content: string, message: string): void {
  mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  writeFileSync(path.join(repo, file), content);
  git(repo, "add", file);
  git(repo, "commit", "-q", "-m", message);
}

/** A repository on branch fix/x with src/auth.ts and README.md committed (commit A). */
function repoAtCommitA(): string {
  const repo = tempFolder();
  git(repo, "init", "-q", "-b", "main");
  commitFile(repo, "README.md", "# demo\n", "initial");
  git(repo, "checkout", "-q", "-b", "fix/x");
  commitFile(repo, "src/auth.ts", "export const a = 1;\n", "A: auth");
  return repo;
}

function threeCommitsLater(repo: string): void {
  commitFile(repo, "src/auth.ts", "export const a = 2;\n", "Rework token refresh");
  commitFile(repo, "docs/notes.md", "notes\n", "Add notes");
  commitFile(repo, "src/other.ts", "export const b = 1;\n", "Add other module");
}

/** The git state stored with a handoff, or with its latest entry. */
const storedGit = async (table: "handoffs" | "handoff_entries", id: string) => {
  const text = table === "handoffs" ? "SELECT git FROM handoffs WHERE id = ?" : "SELECT git FROM handoff_entries WHERE handoff_id = ? ORDER BY seq DESC LIMIT 1";
  return (await read((tx) => tx.get<{ git: string | null }>(text, [id])))!.git;
};

describe("git state (lib/git)", () => {
  it("reads root, branch, HEAD and dirty, and strips credentials from the remote", async () => {
    const repo = repoAtCommitA();
    git(repo, "remote", "add", "origin", "https://x-access-token:ghp_secret123@github.com/acme/app.git");
    const state = await readGitState(repo);
    expect(state).toMatchObject({ branch: "fix/x", head: git(repo, "rev-parse", "HEAD"), dirty: false, remote: "https://github.com/acme/app.git" });
    expect(state?.root).toBe(git(repo, "rev-parse", "--show-toplevel"));
    writeFileSync(path.join(repo, "src/auth.ts"), "changed\n");
    expect((await readGitState(path.join(repo, "src")))?.dirty).toBe(true);
    expect(withoutCredentials("git@github.com:acme/app.git")).toBe("git@github.com:acme/app.git");
  });

  it("finds paths and bare file names in text, and matches them against repository paths", () => {
    const found = mentionedPaths(["Broken in `src/auth.ts`; README.md is fine. See ./lib/a.b.json and auth.ts (v1.2)."]);
    expect([...found]).toEqual(["src/auth.ts", "README.md", "lib/a.b.json", "auth.ts"]);
    expect(isNamed("lib/auth.ts", new Set(["auth.ts"]))).toBe(true);
    expect(isNamed("lib/oauth.ts", new Set(["auth.ts"]))).toBe(false);
    expect(mentionedPaths(["a/".repeat(40_000), "x.y_".repeat(20_000)]).size).toBe(0);
  });

  it("answers null for a folder without git, a missing folder and a relative path", async () => {
    expect(await readGitState(tempFolder())).toBeNull();
    expect(await readGitState(path.join(tempFolder(), "gone"))).toBeNull();
    expect(await readGitState("relative/folder")).toBeNull();
  });
});

describe("staleness at pickup", () => {
  it("names 3 commits, the changed file and the branch when the other side reads three commits later", async () => {
    const repo = repoAtCommitA();
    const created = await createHandoff({
      title: "Fix the login",
      content: "Token refresh is broken in `src/auth.ts`; README.md is fine.",
      asClient: "code",
      repoPath: repo,
    });
    const recorded = JSON.parse(await storedGit("handoffs", created.handoff.id) ?? "null");
    expect(recorded).toMatchObject({ branch: "fix/x", head: git(repo, "rev-parse", "HEAD"), dirty: false });

    threeCommitsLater(repo);
    const thread = await getHandoff({ id: created.handoff.id, asClient: "chat", repoPath: repo });
    expect(thread.staleness).toMatchObject({ commitsSince: 3, changedFiles: ["src/auth.ts"], branch: null, headMissing: false });
    expect(thread.staleness?.commits[0]).toMatch(/^[0-9a-f]{7,} Add other module$/);
    expect(thread.staleness?.block).toMatch(/^Stale: 3 commits on fix\/x since this handoff was written \(.*Rework token refresh.*\); changed since: src\/auth\.ts\./);

    // Up to date: nothing to say.
    const fresh = await createHandoff({ title: "Now", content: "src/auth.ts again", asClient: "code", repoPath: repo });
    expect((await getHandoff({ id: fresh.handoff.id, repoPath: repo })).staleness).toBeNull();
  });

  it("a bare file name in an entry and an uncommitted change count; the latest code entry's state is the reference", async () => {
    const repo = repoAtCommitA();
    const created = await createHandoff({ title: "t", content: "plan", asClient: "chat", repoPath: tempFolder() });
    expect(await storedGit("handoffs", created.handoff.id)).toBeNull();
    await addEntry({ id: created.handoff.id, type: "progress", content: "Changed auth.ts", asClient: "code", repoPath: repo });
    await addEntry({ id: created.handoff.id, type: "question", content: "ok?", asClient: "chat", repoPath: repo });
    expect(await storedGit("handoff_entries", created.handoff.id)).toBeNull();
    writeFileSync(path.join(repo, "src/auth.ts"), "uncommitted\n");
    const thread = await getHandoff({ id: created.handoff.id, repoPath: repo });
    expect(thread.staleness).toMatchObject({ commitsSince: 0, changedFiles: ["src/auth.ts"] });
  });

  it("says the branch changed, or is gone, when the reader's checkout moved", async () => {
    const repo = repoAtCommitA();
    const created = await createHandoff({ title: "t", content: "see src/auth.ts", asClient: "code", repoPath: repo });
    git(repo, "checkout", "-q", "main");
    let staleness = (await getHandoff({ id: created.handoff.id, repoPath: repo })).staleness;
    expect(staleness?.branch).toEqual({ from: "fix/x", to: "main", gone: false });
    expect(staleness?.block).toContain("branch fix/x → main");
    git(repo, "branch", "-q", "-D", "fix/x");
    staleness = (await getHandoff({ id: created.handoff.id, repoPath: repo })).staleness;
    expect(staleness?.branch).toEqual({ from: "fix/x", to: "main", gone: true });
    expect(staleness?.block).toContain("fix/x no longer exists");
  });

  it("another repository, a folder without git and a PATH without git: no block, no error", async () => {
    const repo = repoAtCommitA();
    const created = await createHandoff({ title: "t", content: "src/auth.ts", asClient: "code", repoPath: repo });
    threeCommitsLater(repo);
    const other = repoAtCommitA();
    expect((await getHandoff({ id: created.handoff.id, repoPath: other })).staleness).toBeNull();
    expect((await getHandoff({ id: created.handoff.id, repoPath: tempFolder() })).staleness).toBeNull();
    const savedPath = process.env.PATH;
    process.env.PATH = tempFolder();
    try {
      expect((await getHandoff({ id: created.handoff.id, repoPath: repo })).staleness).toBeNull();
      const blind = await createHandoff({ title: "t", content: "x", asClient: "code", repoPath: repo });
      expect(await storedGit("handoffs", blind.handoff.id)).toBeNull();
    } finally {
      process.env.PATH = savedPath;
    }
    expect((await getHandoff({ id: created.handoff.id, repoPath: repo })).staleness?.commitsSince).toBe(3);
  });

  it("refuses a relative repo_path with a clear Invalid", async () => {
    await expect(createHandoff({ title: "t", content: "x", repoPath: "some/where" })).rejects.toThrow(/repo_path must be an absolute folder path/);
  });

  it("the dashboard compares where the recorded repository is on this machine, else shows what the writer reported", async () => {
    const repo = repoAtCommitA();
    const created = await createHandoff({ title: "t", content: "src/auth.ts", asClient: "code", repoPath: repo });
    threeCommitsLater(repo);
    const thread = await getHandoff({ id: created.handoff.id });
    expect(thread.staleness).toBeNull();
    const report = await gitReportOf(thread);
    expect(report).toMatchObject({ compared: true, staleness: { commitsSince: 3, changedFiles: ["src/auth.ts"] } });
    rmSync(repo, { recursive: true, force: true });
    expect(await gitReportOf(thread)).toMatchObject({ compared: false, staleness: null, recorded: { branch: "fix/x" } });
  });

  it("compares an import's branch and files without a commit", async () => {
    const repo = repoAtCommitA();
    const found = await compareWithRepository({ root: null, remote: null, branch: "feature/y", head: null, dirty: null, files: ["src/auth.ts"] }, repo);
    expect(found?.branch).toEqual({ from: "feature/y", to: "fix/x", gone: true });
  });
});

describe("MCP: get_handoff with the reader's working folder", () => {
  it("puts the block before the entries in the text and a staleness field in the result (in process, working folder)", async () => {
    const repo = repoAtCommitA();
    const server = createMcpServer({ workingFolder: repo, log: () => {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "stale-test", version: "0" });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "t", content: "edit src/auth.ts", as_client: "code" } });
      const id = (created.structuredContent as { handoff: { id: string } }).handoff.id;
      threeCommitsLater(repo);
      const result = await client.callTool({ name: "get_handoff", arguments: { id } });
      const content = result.content as { type: string; text: string }[];
      // The text block is the thread as a quoted transcript: the staleness in Baton's words after its short header, the repository's text quoted, then the entries.
      expect(content).toHaveLength(1);
      expect(content[0].text).toMatch(/^# Handoff hof_[\w-]+\n[^]*\n> Stale: 3 commits since this handoff was written[^]*\ncommit: [^]*\nchanged file: "src\/auth\.ts"\n[^]*\n\[q-[0-9a-f]{12}\] #1 /);
      expect((result.structuredContent as { staleness: { changed_files: string[] } }).staleness.changed_files).toEqual(["src/auth.ts"]);
      // Another folder through repo_path: not that repository, so nothing.
      const elsewhere = await client.callTool({ name: "get_handoff", arguments: { id, repo_path: tempFolder() } });
      expect((elsewhere.structuredContent as { staleness: unknown }).staleness).toBeNull();
      expect((elsewhere.content as unknown[]).length).toBe(1);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("the stdio server records and compares in its working folder", async () => {
    const repo = repoAtCommitA();
    const { client } = await connectStdioClient({ cwd: repo, args: ["--as", "code"] });
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "t", content: "edit src/auth.ts" } });
      const id = (created.structuredContent as { handoff: { id: string } }).handoff.id;
      threeCommitsLater(repo);
      git(repo, "checkout", "-q", "-b", "fix/y");
      const result = await client.callTool({ name: "get_handoff", arguments: { id } });
      const staleness = (result.structuredContent as { staleness: { commits_since: number; branch: unknown; changed_files: string[] } }).staleness;
      expect(staleness).toMatchObject({ commits_since: 3, branch: { from: "fix/x", to: "fix/y", gone: false }, changed_files: ["src/auth.ts"] });
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe("imports and shift documents", () => {
  it("an imported handoff.yaml records its branch and files; with the importer's folder, its commit too", async () => {
    const repo = repoAtCommitA();
    commitFile(repo, "src/auth.py", "v1\n", "auth.py");
    const plain = await importDocument({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, fileName: "handoff.yaml" });
    expect(JSON.parse(await storedGit("handoffs", plain.handoff.id) ?? "null")).toMatchObject({
      branch: "fix/jwt-expiry",
      head: null,
      files: ["src/auth.py", "tests/test_auth.py"],
    });
    const staleness = (await getHandoff({ id: plain.handoff.id, repoPath: repo })).staleness;
    expect(staleness?.branch).toEqual({ from: "fix/jwt-expiry", to: "fix/x", gone: true });

    git(repo, "checkout", "-q", "-b", "fix/jwt-expiry");
    const imported = await importDocument({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, fileName: "handoff.yaml" }, { repoPath: repo });
    const source = (await read((tx) => tx.get<{ git: string }>("SELECT git FROM handoff_sources WHERE handoff_id = ?", [imported.handoff.id])))!.git;
    expect(JSON.parse(source)).toMatchObject({ branch: "fix/jwt-expiry", head: git(repo, "rev-parse", "HEAD") });
    commitFile(repo, "src/auth.py", "v2\n", "Fix expiry");
    // The document's files count although no entry names src/auth.py by its path.
    expect((await getHandoff({ id: imported.handoff.id, repoPath: repo })).staleness).toMatchObject({ commitsSince: 1, changedFiles: ["src/auth.py"], branch: null });
  });

  it("trigger_handoff records the agent's repository; the successor's get_shift_document says what moved on", async () => {
    const repo = repoAtCommitA();
    const agent = await registerAgent({ personaSlug: "stale-dev" });
    const handed = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: "# Goal\nFinish src/auth.ts", repoPath: repo });
    threeCommitsLater(repo);
    const document = await getShiftDocument({ agentId: handed.successor.id, repoPath: repo });
    expect(document.staleness).toMatchObject({ commitsSince: 3, changedFiles: ["src/auth.ts"] });
    expect((await getShiftDocument({ agentId: handed.successor.id, repoPath: tempFolder() })).staleness).toBeNull();
    expect((await getShiftDocument({ agentId: handed.successor.id })).staleness).toBeNull();
  });
});

describe("the state a write records", () => {
  it("is read once for a burst of writes, and a commit in between is seen at once", async () => {
    const repo = repoAtCommitA();
    const first = await gitStateForWrite(repo);
    const again = await gitStateForWrite(repo);
    // The same object: the burst's second write ran no git.
    expect(again).toBe(first);
    commitFile(repo, "src/next.ts", "export {};\n", "next");
    const afterCommit = await gitStateForWrite(repo);
    expect(afterCommit?.head).toBe(git(repo, "rev-parse", "HEAD"));
    expect(afterCommit?.head).not.toBe(first?.head);
  });

  it("sees at once a checkout, a new remote and a commit that changes no file", async () => {
    const repo = repoAtCommitA();
    const first = await gitStateForWrite(repo);
    git(repo, "checkout", "-q", "-b", "fix/moved");
    expect((await gitStateForWrite(repo))?.branch).toBe("fix/moved");
    git(repo, "remote", "add", "origin", "git@github.com:acme/moved.git");
    expect((await gitStateForWrite(repo))?.remote).toBe("git@github.com:acme/moved.git");
    git(repo, "commit", "-q", "--allow-empty", "-m", "nothing changed");
    const afterEmpty = await gitStateForWrite(repo);
    expect(afterEmpty?.head).toBe(git(repo, "rev-parse", "HEAD"));
    expect(afterEmpty?.head).not.toBe(first?.head);
  });

  it("is recorded at once when it is older than 2 s, and read again in the background for the writes after it", async () => {
    const repo = repoAtCommitA();
    const first = await gitStateForWrite(repo);
    expect(first?.dirty).toBe(false);
    writeFileSync(path.join(repo, "src", "auth.ts"), "export const edited = true;\n");
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 2_500);
      // No git ran for this write: it got what was remembered, and a read started behind it.
      expect(await gitStateForWrite(repo)).toBe(first);
      let later = first;
      for (let tries = 0; tries < 250 && later === first; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        later = await gitStateForWrite(repo);
      }
      expect(later).not.toBe(first);
      expect(later?.dirty).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
