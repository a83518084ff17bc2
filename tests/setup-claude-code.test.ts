import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { dataDir, databaseUrl } from "../lib/config";
import { createHandoff } from "../lib/handoffs";
import { applySetup, planSetup } from "../lib/hooks/setup-claude-code";
import { temporaryFolders } from "./support/temp-folders";

/**
 * Issue 19, acceptance 2: `baton setup claude-code` on a repository that already has Claude Code
 * settings, checked with Claude Code's own CLI (@anthropic-ai/claude-code, a devDependency; only
 * its non-model commands, with a throwaway HOME).
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const claudeBin = path.join(projectRoot, "node_modules", ".bin", "claude");
const tempFolder = temporaryFolders("baton-setup-");

function repository(): string {
  const repo = tempFolder();
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
  execFileSync("git", ["remote", "add", "origin", "git@github.com:acme/setup.git"], { cwd: repo });
  return repo;
}

/** Each test's own HOME: setup writes the server into ~/.claude.json, never this machine's. */
let home: string;
beforeEach(() => {
  home = tempFolder();
});

function baton(cwd: string, args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [path.join(projectRoot, "bin", "baton.mjs"), ...args], { cwd, env: { ...process.env, HOME: home, ...env }, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Claude Code's CLI, as its user would run it in `cwd`, with `home` as HOME and nothing from this machine's own setup. */
function claude(cwd: string, home: string, ...args: string[]): string {
  const run = spawnSync(claudeBin, args, {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: {
      NODE_ENV: process.env.NODE_ENV,
      PATH: process.env.PATH ?? "",
      HOME: home,
      BATON_DATA_DIR: dataDir(),
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
  });
  return `${run.stdout}${run.stderr}`;
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
const write = (file: string, json: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
};

const EXISTING_SETTINGS = {
  $schema: "https://json.schemastore.org/claude-code-settings.json",
  permissions: { allow: ["Bash(npm test)"], deny: ["Read(./.env)"] },
  env: { FOO: "bar" },
  hooks: {
    PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "npx prettier --write" }] }],
    SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "echo welcome" }] }],
    Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
  },
};
const EXISTING_SERVERS = { mcpServers: { memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] } } };

/** What Claude Code keeps for a project in ~/.claude.json, a local server of the user's among it. */
const EXISTING_PROJECT_STATE = { allowedTools: [], mcpServers: { notes: { type: "stdio", command: "notes-server", args: [], env: {} } }, hasTrustDialogAccepted: true };

const bin = path.join(projectRoot, "bin", "baton.mjs");
/** The data folder, and a PostgreSQL database (the tests' has no password), pinned for Claude Code's environment. */
const pinnedEnv = () => ({ BATON_DATA_DIR: dataDir(), ...(databaseUrl().startsWith("postgresql:") && { DATABASE_URL: databaseUrl() }) });
const pinnedCommand = (args: string) => `${Object.entries(pinnedEnv()).map(([name, value]) => `${name}=${value} `).join("")}node ${bin} ${args}`;
const batonServer = () => ({ type: "stdio", command: "node", args: [bin, "mcp", "--as", "code"], env: pinnedEnv() });

/** This project's local-scope servers in ~/.claude.json, as Claude Code reads them. */
function localServers(repo: string): Record<string, unknown> | undefined {
  const projects = readJson(path.join(home, ".claude.json")).projects as Record<string, { mcpServers?: Record<string, unknown> }> | undefined;
  return projects?.[repo]?.mcpServers;
}

/**
 * .mcp.json and .claude/settings.json exactly as an earlier setup wrote them (from another
 * checkout and data folder), beside the team's own entries.
 */
function writeEarlierSetup(repo: string, servers: Record<string, unknown>, settings: { hooks?: Record<string, unknown[]> }) {
  const old = "BATON_DATA_DIR=/home/alice/.local/share/baton node /home/alice/.local/share/baton/runtime/0.1.0/bin/baton.mjs";
  write(path.join(repo, ".mcp.json"), {
    mcpServers: {
      ...servers,
      baton: { type: "stdio", command: "node", args: ["/home/alice/.local/share/baton/runtime/0.1.0/bin/baton.mjs", "mcp", "--as", "code"], env: { BATON_DATA_DIR: "/home/alice/.local/share/baton" } },
    },
  });
  const hooks = settings.hooks ?? {};
  write(path.join(repo, ".claude", "settings.json"), {
    ...settings,
    hooks: {
      ...hooks,
      SessionStart: [...(hooks.SessionStart ?? []), { matcher: "startup|resume|clear|compact", hooks: [{ type: "command", command: `${old} hook session-start`, timeout: 30 }] }],
      Stop: [...(hooks.Stop ?? []), { hooks: [{ type: "command", command: `${old} hook stop`, timeout: 30 }] }],
      PreCompact: [{ matcher: "manual|auto", hooks: [{ type: "command", command: `${old} checkpoint --hook --push`, timeout: 60 }] }],
    },
  });
}

describe("baton setup claude-code", () => {
  it("adds the server to the project's local scope and the hooks to .claude/settings.local.json, keeping what is there, leaving the shared files alone; a second run changes nothing", async () => {
    const repo = repository();
    write(path.join(repo, ".claude", "settings.local.json"), EXISTING_SETTINGS);
    write(path.join(repo, ".claude", "settings.json"), { permissions: { allow: ["Bash(npm run lint)"] } });
    write(path.join(repo, ".mcp.json"), EXISTING_SERVERS);
    const shared = [".mcp.json", ".claude/settings.json"].map((file) => fs.readFileSync(path.join(repo, file), "utf8"));
    claude(repo, home, "mcp", "list"); // Claude Code writes its state file first
    const state = readJson(path.join(home, ".claude.json"));
    write(path.join(home, ".claude.json"), { ...state, projects: { [repo]: EXISTING_PROJECT_STATE } });
    fs.mkdirSync(path.join(repo, "src"));

    // --print shows the result and writes nothing; of ~/.claude.json only the entry (it holds the account).
    const printed = baton(path.join(repo, "src"), ["setup", "claude-code", "--print"]);
    expect(printed.status).toBe(0);
    expect(printed.stdout).toContain("hook session-start");
    expect(printed.stdout).toContain(`projects[${JSON.stringify(repo)}].mcpServers.baton: {`);
    expect(printed.stdout).not.toContain(String(state.userID));
    expect(printed.stdout).not.toContain(".mcp.json");
    expect(readJson(path.join(repo, ".claude", "settings.local.json"))).toEqual(EXISTING_SETTINGS);
    expect(localServers(repo)).toEqual(EXISTING_PROJECT_STATE.mcpServers);

    const first = baton(path.join(repo, "src"), ["setup", "claude-code"]);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`~/.claude.json: added the MCP server "baton" (local scope, for ${repo})`);
    expect(first.stdout).toContain("../.claude/settings.local.json: added the SessionStart hook");
    expect(first.stdout).toContain("claude mcp list");

    const settings = readJson(path.join(repo, ".claude", "settings.local.json")) as typeof EXISTING_SETTINGS & { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
    // Everything that was there is still there, unchanged and first.
    expect(settings.$schema).toBe(EXISTING_SETTINGS.$schema);
    expect(settings.permissions).toEqual(EXISTING_SETTINGS.permissions);
    expect(settings.env).toEqual(EXISTING_SETTINGS.env);
    expect(settings.hooks.PostToolUse).toEqual(EXISTING_SETTINGS.hooks.PostToolUse);
    expect(settings.hooks.SessionStart[0]).toEqual(EXISTING_SETTINGS.hooks.SessionStart[0]);
    expect(settings.hooks.Stop[0]).toEqual(EXISTING_SETTINGS.hooks.Stop[0]);
    // And Baton's are added.
    expect(settings.hooks.SessionStart[1]).toEqual({ matcher: "startup|resume|clear|compact", hooks: [{ type: "command", command: pinnedCommand("hook session-start"), timeout: 30 }] });
    expect(settings.hooks.Stop[1]).toEqual({ hooks: [{ type: "command", command: pinnedCommand("hook stop"), timeout: 30 }] });
    expect(settings.hooks.PreCompact).toEqual([{ matcher: "manual|auto", hooks: [{ type: "command", command: pinnedCommand("checkpoint --hook --push"), timeout: 60 }] }]);
    const claudeState = readJson(path.join(home, ".claude.json"));
    expect(claudeState).toEqual({ ...state, projects: { [repo]: { ...EXISTING_PROJECT_STATE, mcpServers: { ...EXISTING_PROJECT_STATE.mcpServers, baton: batonServer() } } } });
    // The files Claude Code shares through git are as they were.
    expect([".mcp.json", ".claude/settings.json"].map((file) => fs.readFileSync(path.join(repo, file), "utf8"))).toEqual(shared);

    const before = [path.join(repo, ".claude", "settings.local.json"), path.join(home, ".claude.json")].map((file) => fs.readFileSync(file, "utf8"));
    const second = baton(repo, ["setup", "claude-code"]);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("~/.claude.json: already set up, nothing to change");
    expect(second.stdout).toContain(".claude/settings.local.json: already set up, nothing to change");
    expect([path.join(repo, ".claude", "settings.local.json"), path.join(home, ".claude.json")].map((file) => fs.readFileSync(file, "utf8"))).toEqual(before);

    // The registered SessionStart command is the one Claude Code will run: through a shell, JSON on stdin.
    const { handoff } = await createHandoff({ title: "Set up", content: "Picked up by the registered hook", asClient: "chat", repoPath: repo });
    const command = settings.hooks.SessionStart[1].hooks[0].command;
    const ran = spawnSync("sh", ["-c", command], { cwd: repo, encoding: "utf8", input: JSON.stringify({ session_id: "s", cwd: repo, hook_event_name: "SessionStart", source: "startup" }) });
    expect(ran.status).toBe(0);
    expect(JSON.parse(ran.stdout).hookSpecificOutput.additionalContext).toContain(handoff.id);

    // --remove takes out Baton's entries and nothing else.
    const removed = baton(repo, ["setup", "claude-code", "--remove"]);
    expect(removed.status).toBe(0);
    expect(readJson(path.join(repo, ".claude", "settings.local.json"))).toEqual(EXISTING_SETTINGS);
    expect(readJson(path.join(home, ".claude.json"))).toEqual({ ...state, projects: { [repo]: EXISTING_PROJECT_STATE } });
    expect([".mcp.json", ".claude/settings.json"].map((file) => fs.readFileSync(path.join(repo, file), "utf8"))).toEqual(shared);
  }, 120_000);

  it("moves an earlier setup's server and hooks out of the shared .mcp.json and .claude/settings.json, recognising only its own, and Claude Code lists the server as connected without asking", () => {
    const repo = repository();
    // A team's own "baton" server (a shared desk's address, say) and hooks that merely mention baton are not setup's.
    const teamServer = { type: "http", url: "https://baton.example.com/api/mcp" };
    const notify = { type: "command", command: "~/bin/notify-baton hook stop" };
    writeEarlierSetup(repo, EXISTING_SERVERS.mcpServers, { ...EXISTING_SETTINGS, hooks: { ...EXISTING_SETTINGS.hooks, Stop: [...EXISTING_SETTINGS.hooks.Stop, { hooks: [notify] }] } });
    execFileSync("git", ["add", "-A"], { cwd: repo });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "an earlier setup's files, committed"], { cwd: repo });
    fs.mkdirSync(path.join(repo, "src"));
    // Kept out of git as Claude Code keeps it (it adds this rule to the user's global ignore file).
    fs.appendFileSync(path.join(repo, ".git", "info", "exclude"), "**/.claude/settings.local.json\n");

    // Before setup moves it, Claude Code asks about the shared server: it is the project's, not the user's.
    expect(claude(path.join(repo, "src"), home, "mcp", "list")).toMatch(/baton: node \/home\/alice\/.*bin\/baton\.mjs mcp --as code - ⏸ Pending approval/);

    const moved = baton(path.join(repo, "src"), ["setup", "claude-code"]);
    expect(moved.status, moved.stderr).toBe(0);
    const movedLines = moved.stdout.split("\n").filter((line) => line.includes("took out"));
    expect(movedLines).toEqual([
      "../.mcp.json, ../.claude/settings.json: took out the server and hooks an earlier setup wrote there (files Claude Code shares through git, and they name this machine's paths); they are in the local files above now",
    ]);
    expect(moved.stdout).not.toContain("is not ignored by git");
    // The shared files hold the team's entries and nothing of this machine's.
    expect(readJson(path.join(repo, ".mcp.json"))).toEqual(EXISTING_SERVERS);
    expect(readJson(path.join(repo, ".claude", "settings.json"))).toEqual({ ...EXISTING_SETTINGS, hooks: { ...EXISTING_SETTINGS.hooks, Stop: [...EXISTING_SETTINGS.hooks.Stop, { hooks: [notify] }] } });
    const diff = execFileSync("git", ["diff"], { cwd: repo, encoding: "utf8" });
    expect(diff).toMatch(/^-.*\/home\/alice/m);
    expect(diff).not.toMatch(/^\+.*baton/m);
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: repo, encoding: "utf8" })).toBe(" M .claude/settings.json\n M .mcp.json\n");
    // And the user's own places hold Baton.
    expect(localServers(repo)).toEqual({ baton: batonServer() });
    expect(Object.keys(readJson(path.join(repo, ".claude", "settings.local.json")).hooks as object)).toEqual(["SessionStart", "Stop", "PreCompact"]);

    const listed = claude(path.join(repo, "src"), home, "mcp", "list");
    expect(listed).toMatch(/baton: node .*bin\/baton\.mjs mcp --as code - .*Connected/);
    expect(listed).not.toContain("/home/alice");
    const details = claude(path.join(repo, "src"), home, "mcp", "get", "baton");
    expect(details).toContain("Scope: Local config (private to you in this project)");
    expect(details).toMatch(/Status: .*Connected/);

    // A second run has nothing left to move.
    const second = baton(repo, ["setup", "claude-code"]);
    expect(second.stdout).not.toContain("took out");
    expect(second.stdout).toContain("already set up, nothing to change");

    // The team's own server of that name stays where the team put it.
    const other = repository();
    write(path.join(other, ".mcp.json"), { mcpServers: { baton: teamServer } });
    expect(baton(other, ["setup", "claude-code"]).status).toBe(0);
    expect(baton(other, ["setup", "claude-code", "--remove"]).status).toBe(0);
    expect(readJson(path.join(other, ".mcp.json"))).toEqual({ mcpServers: { baton: teamServer } });
  }, 120_000);

  it("removes the shared files an earlier setup made when nothing else is left in them, and says so in the same one line", () => {
    const repo = repository();
    writeEarlierSetup(repo, {}, {});
    const moved = baton(repo, ["setup", "claude-code"]);
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stdout.split("\n").filter((line) => line.includes(".mcp.json"))).toEqual([
      ".mcp.json, .claude/settings.json: took out the server and hooks an earlier setup wrote there (files Claude Code shares through git, and they name this machine's paths); they are in the local files above now; removed .mcp.json and .claude/settings.json, nothing else was left in them",
    ]);
    expect(fs.existsSync(path.join(repo, ".mcp.json"))).toBe(false);
    expect(fs.existsSync(path.join(repo, ".claude", "settings.json"))).toBe(false);
    // Without an ignore rule, git would offer the local file for a commit: setup adds one.
    expect(moved.stdout).toContain(".git/info/exclude: added **/.claude/settings.local.json, so git never offers .claude/settings.local.json for a commit");

    // --remove alone also takes them out of the shared files, and the local ones.
    const again = repository();
    writeEarlierSetup(again, {}, {});
    expect(baton(again, ["setup", "claude-code"]).status).toBe(0);
    writeEarlierSetup(again, {}, {});
    const removed = baton(again, ["setup", "claude-code", "--remove"]);
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`~/.claude.json: removed the MCP server "baton" (local scope, for ${again})`);
    expect(removed.stdout).toContain(".mcp.json: removed the MCP server \"baton\"\n.mcp.json: removed the file, nothing else was left in it\n");
    for (const file of [".mcp.json", ".claude/settings.json", ".claude/settings.local.json"]) expect(fs.existsSync(path.join(again, file)), file).toBe(false);
    expect(localServers(again)).toEqual({});
  });

  it("sets up a linked worktree under the folder Claude Code keys it by, the main worktree's, and Claude Code there lists the server as connected", () => {
    const repo = repository();
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first"], { cwd: repo });
    const worktree = path.join(tempFolder(), "feature");
    execFileSync("git", ["worktree", "add", "-q", "-b", "feature", worktree], { cwd: repo });
    fs.mkdirSync(path.join(worktree, "src"));

    const setup = baton(path.join(worktree, "src"), ["setup", "claude-code"]);
    expect(setup.status, setup.stderr).toBe(0);
    expect(localServers(repo)).toEqual({ baton: batonServer() });
    expect(localServers(worktree)).toBeUndefined();
    expect(Object.keys(readJson(path.join(repo, ".claude", "settings.local.json")).hooks as object)).toEqual(["SessionStart", "Stop", "PreCompact"]);
    expect(fs.existsSync(path.join(worktree, ".claude"))).toBe(false);
    // The rule went where git reads it for the main worktree, whose folder holds the file.
    expect(execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repo, encoding: "utf8" })).toBe("");
    expect(claude(path.join(worktree, "src"), home, "mcp", "list")).toMatch(/baton: node .*bin\/baton\.mjs mcp --as code - .*Connected/);
  }, 120_000);

  it("keeps .claude/settings.local.json out of git as Claude Code does: its rule goes into .git/info/exclude once, every line there and .gitignore kept; a committed file is named instead", () => {
    const repo = repository();
    fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules/\n");
    execFileSync("git", ["add", ".gitignore"], { cwd: repo });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore"], { cwd: repo });
    const exclude = path.join(repo, ".git", "info", "exclude");
    fs.writeFileSync(exclude, "# the user's own\n*.swp"); // no newline at its end

    const setup = baton(repo, ["setup", "claude-code"]);
    expect(setup.status, setup.stderr).toBe(0);
    expect(setup.stdout).toContain(
      ".git/info/exclude: added **/.claude/settings.local.json, so git never offers .claude/settings.local.json for a commit (git's own list for this repository: no committed file changed)\n",
    );
    expect(fs.existsSync(path.join(repo, ".claude", "settings.local.json"))).toBe(true);
    expect(execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repo, encoding: "utf8" })).toBe("");
    expect(fs.readFileSync(exclude, "utf8")).toBe("# the user's own\n*.swp\n**/.claude/settings.local.json\n");
    expect(fs.readFileSync(path.join(repo, ".gitignore"), "utf8")).toBe("node_modules/\n");

    // Idempotent: a second run adds nothing.
    const second = baton(repo, ["setup", "claude-code"]);
    expect(second.stdout).not.toContain("info/exclude");
    expect(fs.readFileSync(exclude, "utf8")).toBe("# the user's own\n*.swp\n**/.claude/settings.local.json\n");

    // A settings file committed earlier is beyond any ignore rule: setup says how to untrack it and adds no rule.
    const committed = repository();
    write(path.join(committed, ".claude", "settings.local.json"), {});
    execFileSync("git", ["add", "-A"], { cwd: committed });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "settings"], { cwd: committed });
    const before = fs.readFileSync(path.join(committed, ".git", "info", "exclude"), "utf8");
    const tracked = baton(committed, ["setup", "claude-code"]);
    expect(tracked.status, tracked.stderr).toBe(0);
    expect(tracked.stdout).toContain(".claude/settings.local.json is committed in this repository, so no ignore rule applies to it: `git rm --cached .claude/settings.local.json`");
    expect(fs.readFileSync(path.join(committed, ".git", "info", "exclude"), "utf8")).toBe(before);
  });

  it("Claude Code runs the SessionStart hook setup wrote and starts its server, in a subfolder and in a linked worktree: the waiting handoff comes into the session", async () => {
    const repo = repository();
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first"], { cwd: repo });
    const worktree = path.join(tempFolder(), "feature");
    execFileSync("git", ["worktree", "add", "-q", "-b", "feature", worktree], { cwd: repo });
    for (const folder of [path.join(repo, "src"), path.join(worktree, "src")]) fs.mkdirSync(folder);
    expect(baton(path.join(repo, "src"), ["setup", "claude-code"]).status).toBe(0);
    const { handoff } = await createHandoff({ title: "Picked up by Claude Code", content: "Waiting in the repository", asClient: "chat", repoPath: repo });

    for (const folder of [path.join(repo, "src"), path.join(worktree, "src")]) {
      // Without an account Claude Code stops at the model, after the session has started; its stream shows the hook and the servers.
      const events = claude(folder, home, "-p", "hi", "--output-format", "stream-json", "--verbose")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { subtype?: string; hook_event?: string; stdout?: string; mcp_servers?: { name: string; source: string; status: string }[] });
      const sessionStart = events.find((event) => event.subtype === "hook_response" && event.hook_event === "SessionStart");
      expect(sessionStart?.stdout, folder).toContain(handoff.id);
      expect(events.find((event) => event.subtype === "init")?.mcp_servers, folder).toContainEqual({ name: "baton", source: "local", status: "connected" });
    }
  }, 120_000);

  it("--user registers the server for every folder in ~/.claude.json and the hooks in ~/.claude/settings.json, keeping Claude Code's own state", () => {
    const folder = tempFolder();
    claude(folder, home, "mcp", "list"); // Claude Code writes its state file first
    const state = readJson(path.join(home, ".claude.json"));
    expect(state.userID).toBeTruthy();

    const setup = baton(folder, ["setup", "claude-code", "--user"], { HOME: home });
    expect(setup.status).toBe(0);
    const after = readJson(path.join(home, ".claude.json"));
    expect(after).toMatchObject({ ...state, mcpServers: { baton: { command: "node" } } });
    expect(Object.keys(readJson(path.join(home, ".claude", "settings.json")).hooks as object)).toEqual(["SessionStart", "Stop", "PreCompact"]);
    expect(claude(folder, home, "mcp", "list")).toMatch(/baton: node .*bin\/baton\.mjs mcp --as code - .*Connected/);
    expect(baton(folder, ["setup", "claude-code", "--user"], { HOME: home }).stdout).toContain("already set up, nothing to change");
  }, 120_000);

  it.each([
    ["--user", ["--user"]],
    ["the default, local scope", []],
    ["--remove of an earlier setup", ["--remove"]],
  ])("--print (%s) shows only Baton's entries: never the account, another project's server or the user's settings, secrets included", (_, scope) => {
    const repo = repository();
    const userSettings = path.join(home, ".claude", "settings.json");
    const state = {
      userID: "4f1c0ffee-user-id",
      oauthAccount: { emailAddress: "alice@example.com" },
      mcpServers: {
        github: { type: "stdio", command: "github-mcp", args: [], env: { GITHUB_TOKEN: "ghp_userScopeSecret123" } },
        // The user's own "baton" (a desk elsewhere), which --user replaces: what it was is named without its token.
        baton: { type: "http", url: "https://desk.example/api/mcp?token=urlSecret345", headers: { Authorization: "Bearer headerSecret678" } },
      },
      projects: { "/home/alice/other": { mcpServers: { db: { type: "stdio", command: "db-mcp", args: [], env: { DB_PASSWORD: "otherProjectSecret456" } } } } },
    };
    const settings = { env: { ANTHROPIC_API_KEY: "sk-ant-settingsSecret789" }, hooks: { Stop: [{ hooks: [{ type: "command", command: "notify --token hookSecret012" }] }] } };
    write(path.join(home, ".claude.json"), state);
    write(userSettings, settings);
    write(path.join(repo, ".claude", "settings.local.json"), settings);
    if (scope.includes("--remove")) expect(baton(repo, ["setup", "claude-code"]).status).toBe(0);
    const before = [path.join(home, ".claude.json"), userSettings, path.join(repo, ".claude", "settings.local.json")].map((file) => fs.readFileSync(file, "utf8"));

    const printed = baton(repo, ["setup", "claude-code", ...scope, "--print"]);
    expect(printed.status, printed.stderr).toBe(0);
    const secrets = ["ghp_userScopeSecret123", "urlSecret345", "headerSecret678", "otherProjectSecret456", "sk-ant-settingsSecret789", "hookSecret012", state.userID, "alice@example.com", "/home/alice/other"];
    for (const secret of secrets) expect(printed.stdout).not.toContain(secret);
    const serversAt = scope.includes("--user") ? "mcpServers.baton" : `projects[${JSON.stringify(repo)}].mcpServers.baton`;
    if (scope.includes("--remove")) {
      expect(printed.stdout).toContain(`${serversAt}: (none of Baton's)`);
      expect(printed.stdout).toContain("hooks.Stop: (none of Baton's)");
    } else {
      expect(printed.stdout).toContain(`${serversAt}: {`);
      expect(printed.stdout).toContain(`"command": "${pinnedCommand("hook stop")}"`);
      expect(printed.stdout).toMatch(/^hooks\.PreCompact: \{$/m);
    }
    // And it writes nothing.
    expect([path.join(home, ".claude.json"), userSettings, path.join(repo, ".claude", "settings.local.json")].map((file) => fs.readFileSync(file, "utf8"))).toEqual(before);

    const written = baton(repo, ["setup", "claude-code", ...scope]);
    expect(written.status, written.stderr).toBe(0);
    if (scope.includes("--user")) expect(written.stdout).toContain('~/.claude.json: updated the MCP server "baton": node ');
    for (const secret of secrets) expect(written.stdout).not.toContain(secret);
  });

  it.each([
    ["--user", ["--user"]],
    ["the default, local scope", []],
  ])("%s before Claude Code ever ran makes ~/.claude.json 600, as Claude Code makes it (it keeps the mode it finds): not readable by the machine's other users", (_, scope) => {
    const folder = repository();
    // Under the usual umask, 022, a file made with the default mode is readable by everyone.
    const run = spawnSync("sh", ["-c", 'umask 022 && exec "$0" "$@"', process.execPath, path.join(projectRoot, "bin", "baton.mjs"), "setup", "claude-code", ...scope], {
      cwd: folder,
      env: { ...process.env, HOME: home },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect((fs.statSync(path.join(home, ".claude.json")).mode & 0o777).toString(8)).toBe("600");
    expect(claude(folder, home, "mcp", "list")).toMatch(/baton: node .*bin\/baton\.mjs mcp --as code - .*Connected/);
    expect((fs.statSync(path.join(home, ".claude.json")).mode & 0o777).toString(8)).toBe("600");
  }, 120_000);

  it("pins a PostgreSQL database without its password (the files are often committed)", () => {
    const printed = baton(repository(), ["setup", "claude-code", "--print"], { DATABASE_URL: "postgresql://baton:s3cret@db.example:5432/baton" });
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout).toContain("DATABASE_URL=postgresql://baton@db.example:5432/baton ");
    expect(printed.stdout).not.toContain("s3cret");
  });

  it.each([
    ["a password in the query", "postgresql://baton@db.example:5432/baton?password=Qz7secretvalue&sslmode=require", "postgresql://baton@db.example:5432/baton?sslmode=require"],
    ["PGPASSWORD in the query", "postgres://baton@db.example/baton?PGPASSWORD=Qz7secretvalue", "postgres://baton@db.example/baton"],
    ["a key's passphrase in the query", "postgresql://baton@db.example/baton?sslmode=verify-full&sslpassword=Qz7secretvalue", "postgresql://baton@db.example/baton?sslmode=verify-full"],
    ["every form at once", "postgresql://baton:Qz7secretvalue@db.example/baton?pwd=Qz7secretvalue&password=Qz7secretvalue#x", "postgresql://baton@db.example/baton#x"],
    // Unescaped, these end a URL's authority early: the password read as a port, then a path, query or fragment.
    ["a password holding an unescaped #", "postgresql://baton:Q#z7secretvalue@db.example:5432/baton", "postgresql://baton@db.example:5432/baton"],
    ["a password holding an unescaped /", "postgresql://baton:Qz/7secretvalue@db.example/baton", "postgresql://baton@db.example/baton"],
    ["a password holding ? and @", "postgresql://baton:Q?z7@secretvalue@db.example/baton?sslmode=require", "postgresql://baton@db.example/baton?sslmode=require"],
  ])("writes no PostgreSQL credential given as %s into the files", (_, url, pinned) => {
    const repo = repository();
    const written = baton(repo, ["setup", "claude-code"], { DATABASE_URL: url });
    expect(written.status, written.stderr).toBe(0);
    for (const file of [path.join(home, ".claude.json"), path.join(repo, ".claude", "settings.local.json")]) {
      const text = fs.readFileSync(file, "utf8");
      expect(text).toContain(pinned);
      expect(text).not.toContain("Qz7secretvalue");
    }
    expect(written.stdout).not.toContain("Qz7secretvalue");
  });

  it("recognises only its own entries: a user's hook that merely mentions baton is neither updated nor removed", () => {
    const repo = repository();
    const settingsFile = path.join(repo, ".claude", "settings.local.json");
    const notify = { type: "command", command: "~/bin/notify-baton hook stop" };
    const report = { type: "command", command: "/usr/local/bin/baton-report hook session-start --quiet" };
    const ownFromOldCheckout = { type: "command", command: "BATON_DATA_DIR=/srv/old node /srv/old-checkout/bin/baton.mjs hook stop", timeout: 30 };
    write(settingsFile, { hooks: { Stop: [{ hooks: [notify, ownFromOldCheckout] }], SessionStart: [{ hooks: [report] }] } });

    expect(baton(repo, ["setup", "claude-code"]).status).toBe(0);
    const hooks = readJson(settingsFile).hooks as Record<string, { hooks: { command: string }[] }[]>;
    const commands = (event: string) => hooks[event].flatMap((group) => group.hooks.map((hook) => hook.command));
    expect(commands("Stop")).toContain(notify.command);
    expect(commands("Stop").filter((command) => command.endsWith("bin/baton.mjs hook stop"))).toHaveLength(1);
    expect(commands("Stop")).not.toContain(ownFromOldCheckout.command);
    expect(commands("SessionStart")).toContain(report.command);

    expect(baton(repo, ["setup", "claude-code", "--remove"]).status).toBe(0);
    const left = readJson(settingsFile).hooks as Record<string, { hooks: { command: string }[] }[]>;
    expect(left.Stop.flatMap((group) => group.hooks.map((hook) => hook.command))).toEqual([notify.command]);
    expect(left.SessionStart.flatMap((group) => group.hooks.map((hook) => hook.command))).toEqual([report.command]);
  });

  it("keeps every untouched byte: numbers past double precision and the file's own formatting", () => {
    const repo = repository();
    const settingsFile = path.join(repo, ".claude", "settings.local.json");
    const mcpFile = path.join(home, ".claude.json");
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    const settingsText = '{\n    "feedbackSurveyId": 12345678901234567890,\n    "ratio": 1.50,\n    "permissions": { "allow": ["Bash(npm test)"] }\n}\n';
    const mcpText = '{\n    "mcpServers": {\n        "other": { "command": "other-server", "args": ["--port", "8080"], "nonce": 98765432109876543210 }\n    }\n}\n';
    fs.writeFileSync(settingsFile, settingsText);
    fs.writeFileSync(mcpFile, mcpText);
    expect(baton(repo, ["setup", "claude-code"]).status).toBe(0);
    const settings = fs.readFileSync(settingsFile, "utf8");
    for (const line of settingsText.split("\n").slice(1, 4)) expect(settings).toContain(line);
    expect(settings).toContain('"hooks"');
    const servers = fs.readFileSync(mcpFile, "utf8");
    expect(servers).toContain('"other": { "command": "other-server", "args": ["--port", "8080"], "nonce": 98765432109876543210 }');
    expect(servers).toContain('"baton"');
  });

  it("writes through a symlinked settings file (a dotfiles link stays a link), and refuses a link that leads out of the repository", () => {
    const dotfiles = tempFolder();
    const linkedSettings = path.join(dotfiles, "claude-settings.json");
    write(linkedSettings, { theme: "dark" });
    fs.mkdirSync(path.join(home, ".claude"), { recursive: true });
    fs.symlinkSync(linkedSettings, path.join(home, ".claude", "settings.json"));
    const user = baton(repository(), ["setup", "claude-code", "--user"], { HOME: home });
    expect(user.status, user.stderr).toBe(0);
    expect(fs.lstatSync(path.join(home, ".claude", "settings.json")).isSymbolicLink()).toBe(true);
    expect(readJson(linkedSettings)).toMatchObject({ theme: "dark", hooks: { SessionStart: expect.any(Array) } });

    const repo = repository();
    const outside = path.join(tempFolder(), "mcp.json");
    write(outside, { mcpServers: { vault: { command: "vault", env: { VAULT_TOKEN: "s.outsideSecret1234" } } } });
    fs.symlinkSync(outside, path.join(repo, ".mcp.json"));
    const refused = baton(repo, ["setup", "claude-code"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/\.mcp\.json is a link to .*, outside the repository; setup neither writes through it nor replaces it/);
    expect(fs.lstatSync(path.join(repo, ".mcp.json")).isSymbolicLink()).toBe(true);
    expect(readJson(outside)).toEqual({ mcpServers: { vault: { command: "vault", env: { VAULT_TOKEN: "s.outsideSecret1234" } } } });
    expect(fs.existsSync(path.join(repo, ".claude", "settings.local.json"))).toBe(false);
    // The --user run above made ~/.claude.json; nothing went into it for this repository.
    expect(localServers(repo)).toBeUndefined();
  });

  it("leaves a read-only file alone and says so in one line; a folder where a file should be is one line, no stack trace", () => {
    const repo = repository();
    const settingsFile = path.join(repo, ".claude", "settings.local.json");
    write(settingsFile, { theme: "light" });
    fs.chmodSync(settingsFile, 0o444);
    const readOnly = baton(repo, ["setup", "claude-code"]);
    expect(readOnly.status).toBe(1);
    expect(readOnly.stderr.trim().split("\n")).toHaveLength(1);
    expect(readOnly.stderr).toMatch(/settings\.local\.json is read-only; setup leaves it alone: make it writable to let setup add Baton/);
    expect(readJson(settingsFile)).toEqual({ theme: "light" });
    expect(fs.existsSync(path.join(home, ".claude.json"))).toBe(false);

    // A read-only shared file holding an earlier setup's entries is left as it is too, and nothing is written.
    const shared = repository();
    writeEarlierSetup(shared, {}, {});
    const sharedSettings = path.join(shared, ".claude", "settings.json");
    const sharedBefore = fs.readFileSync(sharedSettings, "utf8");
    fs.chmodSync(sharedSettings, 0o444);
    const sharedReadOnly = baton(shared, ["setup", "claude-code"]);
    expect(sharedReadOnly.status).toBe(1);
    expect(sharedReadOnly.stderr).toMatch(/\.claude\/settings\.json is read-only; setup leaves it alone: make it writable to let setup take Baton out: nothing was written\n$/);
    expect(fs.readFileSync(sharedSettings, "utf8")).toBe(sharedBefore);
    expect(readJson(path.join(shared, ".mcp.json")).mcpServers).toHaveProperty("baton");
    expect(fs.existsSync(path.join(shared, ".claude", "settings.local.json"))).toBe(false);

    // --remove on a read-only file holding Baton's hooks says what making it writable is for.
    fs.chmodSync(settingsFile, 0o644);
    expect(baton(repo, ["setup", "claude-code"]).status).toBe(0);
    fs.chmodSync(settingsFile, 0o444);
    const settingsBefore = fs.readFileSync(settingsFile, "utf8");
    const removeReadOnly = baton(repo, ["setup", "claude-code", "--remove"]);
    expect(removeReadOnly.status).toBe(1);
    expect(removeReadOnly.stderr).toMatch(/settings\.local\.json is read-only; setup leaves it alone: make it writable to let setup take Baton out: nothing was written\n$/);
    expect(fs.readFileSync(settingsFile, "utf8")).toBe(settingsBefore);

    const other = repository();
    fs.mkdirSync(path.join(other, ".mcp.json"));
    const folder = baton(other, ["setup", "claude-code"]);
    expect(folder.status).toBe(1);
    expect(folder.stderr.trim().split("\n")).toHaveLength(1);
    expect(folder.stderr).toMatch(/\.mcp\.json is a folder where Claude Code expects a file/);
  });

  it("reads settings and .mcp.json that start with a byte order mark, as Claude Code does (Windows editors write one)", () => {
    const repo = repository();
    writeEarlierSetup(repo, EXISTING_SERVERS.mcpServers, {});
    const earlierServers = fs.readFileSync(path.join(repo, ".mcp.json"), "utf8");
    fs.writeFileSync(path.join(repo, ".mcp.json"), `\uFEFF${earlierServers}`);
    fs.writeFileSync(path.join(repo, ".claude", "settings.local.json"), `\uFEFF${JSON.stringify(EXISTING_SETTINGS, null, 2)}\n`);
    // Claude Code's own CLI reads the file as it is.
    expect(claude(repo, home, "mcp", "list")).toMatch(/memory: npx -y @modelcontextprotocol\/server-memory - ⏸ Pending approval/);

    const ran = baton(repo, ["setup", "claude-code"]);
    expect(ran.stderr).toBe("");
    expect(ran.status).toBe(0);
    const settings = readJson(path.join(repo, ".claude", "settings.local.json"));
    expect(settings).toMatchObject({ env: EXISTING_SETTINGS.env, permissions: EXISTING_SETTINGS.permissions });
    expect(Object.keys(settings.hooks as object).sort()).toEqual(["PostToolUse", "PreCompact", "SessionStart", "Stop"]);
    expect(readJson(path.join(repo, ".mcp.json"))).toEqual(EXISTING_SERVERS);
    const listed = claude(repo, home, "mcp", "list");
    expect(listed).toMatch(/baton: node .*bin\/baton\.mjs mcp --as code - .*Connected/);
    expect(listed).toMatch(/memory: npx -y @modelcontextprotocol\/server-memory - ⏸ Pending approval/);
  }, 120_000);

  it.each(["settings.local.json", "settings.json"])("says a .claude/%s that is not JSON in one line, however V8 quotes it", (file) => {
    const repo = repository();
    fs.mkdirSync(path.join(repo, ".claude"));
    fs.writeFileSync(path.join(repo, ".claude", file), "nope\nstill not JSON\n");
    const refused = baton(repo, ["setup", "claude-code"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain(`.claude/${file} is not valid JSON (`);
    expect(refused.stderr).toMatch(/nothing was written\n$/);
    expect(fs.readFileSync(path.join(repo, ".claude", file), "utf8")).toBe("nope\nstill not JSON\n");
    expect(fs.existsSync(path.join(home, ".claude.json"))).toBe(false);
  });

  it("refuses a settings file that is not JSON, and a folder outside any repository, writing nothing", () => {
    const repo = repository();
    fs.mkdirSync(path.join(repo, ".claude"));
    fs.writeFileSync(path.join(repo, ".claude", "settings.json"), "{ not json");
    const refused = baton(repo, ["setup", "claude-code"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/settings\.json is not valid JSON .*nothing was written/);
    expect(fs.readFileSync(path.join(repo, ".claude", "settings.json"), "utf8")).toBe("{ not json");
    expect(fs.existsSync(path.join(home, ".claude.json"))).toBe(false);
    expect(fs.existsSync(path.join(repo, ".claude", "settings.local.json"))).toBe(false);

    const outside = baton(tempFolder(), ["setup", "claude-code"]);
    expect(outside.status).toBe(1);
    expect(outside.stderr).toMatch(/is not inside a git repository/);
  });

  it.each([
    ["a relative link", true],
    ["an absolute link", false],
  ])("refuses a .claude folder that is %s leading out of the repository, also for --remove, and writes nothing anywhere", (_, relative) => {
    const outsideClaude = path.join(home, ".claude");
    const ownSettings = { theme: "dark", hooks: { Stop: [{ hooks: [{ type: "command", command: "node /srv/baton/bin/baton.mjs hook stop", timeout: 30 }] }] } };
    write(path.join(outsideClaude, "settings.json"), ownSettings);
    const before = fs.readFileSync(path.join(outsideClaude, "settings.json"), "utf8");
    const repo = repository();
    fs.symlinkSync(relative ? path.relative(repo, outsideClaude) : outsideClaude, path.join(repo, ".claude"));

    for (const args of [["setup", "claude-code"], ["setup", "claude-code", "--remove"]]) {
      const refused = baton(repo, args, { HOME: home });
      expect(refused.status, refused.stdout).toBe(1);
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(refused.stderr).toMatch(/\.claude\/settings\.local\.json leads through a linked folder to .*, outside the repository; setup neither writes through it nor replaces it/);
      expect(fs.readFileSync(path.join(outsideClaude, "settings.json"), "utf8")).toBe(before);
      expect(fs.readdirSync(outsideClaude)).toEqual(["settings.json"]);
      expect(fs.existsSync(path.join(home, ".claude.json"))).toBe(false);
    }
  });

  it("writes through a .claude folder linked inside the repository", () => {
    const repo = repository();
    fs.mkdirSync(path.join(repo, "config", "claude"), { recursive: true });
    fs.symlinkSync(path.join("config", "claude"), path.join(repo, ".claude"));
    const setup = baton(repo, ["setup", "claude-code"]);
    expect(setup.status, setup.stderr).toBe(0);
    expect(fs.lstatSync(path.join(repo, ".claude")).isSymbolicLink()).toBe(true);
    expect(Object.keys(readJson(path.join(repo, "config", "claude", "settings.local.json")).hooks as object)).toEqual(["SessionStart", "Stop", "PreCompact"]);
  });

  it("does not write through a folder that becomes a link between reading and writing", async () => {
    const repo = repository();
    const outside = tempFolder();
    write(path.join(outside, "settings.local.json"), { theme: "dark" });
    // In this process ~/.claude.json is the test's own too.
    const ownHome = process.env.HOME;
    process.env.HOME = home;
    try {
      const plan = await planSetup({ scope: "local", folder: repo });
      fs.symlinkSync(outside, path.join(repo, ".claude"));
      expect(() => applySetup(plan.files)).toThrow(/\.claude became a link to .* while setup ran; run setup again: nothing was written/);
    } finally {
      process.env.HOME = ownHome;
    }
    expect(readJson(path.join(outside, "settings.local.json"))).toEqual({ theme: "dark" });
    expect(fs.existsSync(path.join(home, ".claude.json"))).toBe(false);
  });

  it("refuses a .claude (or ~/.claude) that is a file, in one line and writing nothing, for setup, --remove and --user", () => {
    const repo = repository();
    fs.writeFileSync(path.join(repo, ".claude"), "not a folder\n");
    fs.writeFileSync(path.join(home, ".claude"), "not a folder\n");
    for (const args of [[], ["--remove"], ["--user"], ["--user", "--remove"]]) {
      const refused = baton(repo, ["setup", "claude-code", ...args], { HOME: home });
      expect(refused.status, args.join(" ")).toBe(1);
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(refused.stderr).toMatch(/\.claude is a file where Claude Code expects a folder; move it away, then run setup again: nothing was written/);
    }
    expect(fs.readFileSync(path.join(repo, ".claude"), "utf8")).toBe("not a folder\n");
    expect(fs.existsSync(path.join(repo, ".mcp.json"))).toBe(false);
    expect(fs.existsSync(path.join(home, ".claude.json"))).toBe(false);
  });

  it("shows a hook command it takes out of the repository's shared settings with its escape sequences escaped: a cloned repository cannot drive the terminal", () => {
    const repo = repository();
    // Baton's form (a quoted word may hold anything), committed with an OSC 52 clipboard write and a screen clear in its path.
    const command = "node '/x/\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J\r\u202e/bin/baton.mjs' hook session-start";
    write(path.join(repo, ".claude", "settings.json"), { hooks: { SessionStart: [{ hooks: [{ type: "command", command }] }] } });
    const removed = baton(repo, ["setup", "claude-code", "--remove"]);
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(removed.stdout).toContain(".claude/settings.json: removed the SessionStart hook (node '/x/\\u001b]52;c;cm0gLXJmIH4K\\u0007\\u001b[2J\\r\\u202e/bin/baton.mjs' hook session-start)\n");
    expect(fs.existsSync(path.join(repo, ".claude", "settings.json"))).toBe(false);
  });

  it("recognises its own hooks when a path holds a quote: a second run changes nothing and --remove takes them out", () => {
    const dataFolder = path.join(tempFolder(), "o'brien data");
    const home = path.join(tempFolder(), "o'brien");
    fs.mkdirSync(home);
    const env = { BATON_DATA_DIR: dataFolder, HOME: home };
    for (const scope of [[], ["--user"]]) {
      const repo = repository();
      const settingsFile = scope.length ? path.join(home, ".claude", "settings.json") : path.join(repo, ".claude", "settings.local.json");
      expect(baton(repo, ["setup", "claude-code", ...scope], env).status).toBe(0);
      const first = fs.readFileSync(settingsFile, "utf8");
      // shellQuoted's '\'' as JSON writes it.
      expect(first).toContain(`BATON_DATA_DIR='${dataFolder.replace(/'/g, "'\\\\''")}'`);
      const second = baton(repo, ["setup", "claude-code", ...scope], env);
      expect(second.stdout).toMatch(/settings(\.local)?\.json: already set up, nothing to change/);
      expect(fs.readFileSync(settingsFile, "utf8")).toBe(first);
      // The command as written runs, quoting and all.
      const command = (readJson(settingsFile).hooks as Record<string, { hooks: { command: string }[] }[]>).Stop[0].hooks[0].command;
      expect(spawnSync("sh", ["-c", `${command} --help`], { encoding: "utf8" }).status).toBe(1);
      const removed = baton(repo, ["setup", "claude-code", "--remove", ...scope], env);
      expect(removed.status).toBe(0);
      expect(removed.stdout).toContain("removed the Stop hook");
      expect(fs.existsSync(settingsFile) ? JSON.stringify(readJson(settingsFile)) : "").not.toContain("baton.mjs");
    }
  });

  it.each([
    ["an event that is an object", '{"hooks":{"Stop":{"hooks":[{"type":"command","command":"echo hi"}]}}}', /"hooks\.Stop" is not a list of hook groups/],
    ["an event that is a string", '{"hooks":{"Stop":"echo hi"}}', /"hooks\.Stop" is not a list of hook groups/],
    ["a key given twice", '{"hooks":{},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}', /holds the key "hooks" more than once/],
    ["a key given twice deeper", '{"hooks":{"Stop":[],"Stop":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}', /holds the key "hooks\.Stop" more than once/],
  ])("refuses settings with %s in one line and writes nothing (setup and --remove; local and shared settings)", (_, text, message) => {
    for (const file of ["settings.local.json", "settings.json"]) {
      const repo = repository();
      const settingsFile = path.join(repo, ".claude", file);
      fs.mkdirSync(path.dirname(settingsFile));
      fs.writeFileSync(settingsFile, text);
      for (const args of [[], ["--remove"]]) {
        const refused = baton(repo, ["setup", "claude-code", ...args]);
        expect(refused.status).toBe(1);
        expect(refused.stderr.trim().split("\n")).toHaveLength(1);
        expect(refused.stderr).toContain(`.claude/${file}`);
        expect(refused.stderr).toMatch(message);
        expect(refused.stderr).toMatch(/nothing was written$/m);
        expect(fs.readFileSync(settingsFile, "utf8")).toBe(text);
        expect(fs.existsSync(path.join(home, ".claude.json"))).toBe(false);
      }
    }
  });

  it("--remove takes away the settings file setup made, and only Baton's server from ~/.claude.json", () => {
    const repo = repository();
    expect(baton(repo, ["setup", "claude-code"]).status).toBe(0);
    const removed = baton(repo, ["setup", "claude-code", "--remove"]);
    expect(removed.stdout).toContain(".claude/settings.local.json: removed the file, nothing else was left in it");
    expect(fs.existsSync(path.join(repo, ".claude", "settings.local.json"))).toBe(false);
    // Claude Code's own form for a project without local servers, as `claude mcp remove` leaves it.
    expect(readJson(path.join(home, ".claude.json"))).toEqual({ projects: { [repo]: { mcpServers: {} } } });
    // A second --remove finds nothing to take out, and says so (it said "already set up").
    const again = baton(repo, ["setup", "claude-code", "--remove"]);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe("~/.claude.json: nothing of Baton's in it, nothing to change\n.claude/settings.local.json: nothing of Baton's in it, nothing to change\n");

    const other = repository();
    write(path.join(other, ".claude", "settings.local.json"), { permissions: { allow: ["Bash(ls)"] } });
    expect(baton(other, ["setup", "claude-code"]).status).toBe(0);
    expect(baton(other, ["setup", "claude-code", "--remove"]).status).toBe(0);
    expect(readJson(path.join(other, ".claude", "settings.local.json"))).toEqual({ permissions: { allow: ["Bash(ls)"] } });
  });
});
