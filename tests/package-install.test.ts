import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNNING_MAJOR } from "../lib/supported-node.mjs";
import { freePort } from "./support/free-port";
import { ltsNode } from "./support/lts-node";
import { connectStdioClient } from "./support/mcp-clients";
import { expectMcpContract } from "./support/mcp-contract";
import { PACKED_TARBALL } from "./support/packed-tarball";

/**
 * Issue 26: Baton installed the way people install it. The package is packed (`npm run pack`),
 * published to a private registry on loopback (verdaccio, proxying the usual registry for its
 * dependencies), and run with `npx -y baton-desk …` from empty folders with empty HOMEs, as a
 * user would, with no checkout on the path; Claude Code's own CLI checks the wiring. Each Node
 * line installs once (its own npm cache, shared by its tests: the first `npx` compiles
 * better-sqlite3 for it) and every later `npx` runs from that warm cache.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const claudeBin = path.join(projectRoot, "node_modules", ".bin", "claude");
const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };
const folders: string[] = [];
const children = new Set<ChildProcess>();
let registry: { url: string; process: ChildProcess };
let tarball: string;

function tempFolder(name: string): string {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `baton-package-${name}-`)));
  folders.push(folder);
  return folder;
}

/** The folder npx installs a package spec into (libnpmexec: the first 16 hex digits of the spec's SHA-512). */
const npxFolderName = (spec: string) => createHash("sha512").update(spec).digest("hex").slice(0, 16);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Ends a process started in its own group, with everything it started (npx → node → the server). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid!, "SIGTERM");
  await exited;
  children.delete(child);
}

beforeAll(async () => {
  // One package serves every Node line, as the published one does: `npm test` packs it in its
  // first run and hands the tarball to the other line's run (scripts/test-all.ts).
  tarball = process.env.BATON_PACKED_TARBALL ?? PACKED_TARBALL;
  if (!process.env.BATON_PACKED_TARBALL) execFileSync("npm", ["run", "pack"], { cwd: projectRoot, stdio: "ignore" });
  const folder = tempFolder("registry");
  const upstream = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
  fs.writeFileSync(
    path.join(folder, "config.yaml"),
    [
      `storage: ${path.join(folder, "storage")}`,
      `uplinks: { upstream: { url: "${upstream}" } }`,
      "packages:",
      "  'baton-desk': { access: $all, publish: $anonymous }",
      "  '**': { access: $all, proxy: upstream }",
      "log: { type: stdout, format: pretty, level: error }",
      // Verdaccio's default (10 MB) is under a publish of this package: its tarball, base64 in the request, and its README.
      "max_body_size: 64mb",
    ].join("\n"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const verdaccio = spawn(path.join(projectRoot, "node_modules", ".bin", "verdaccio"), ["--config", path.join(folder, "config.yaml"), "--listen", `127.0.0.1:${port}`], {
    detached: true,
    stdio: "ignore",
  });
  children.add(verdaccio);
  registry = { url, process: verdaccio };
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${url}-/ping`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (tries > 100) throw new Error("verdaccio did not start");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  execFileSync("npm", ["publish", tarball, "--registry", url, `--//127.0.0.1:${port}/:_authToken=local`], { stdio: "ignore" });
}, 300_000);

afterAll(async () => {
  for (const child of children) await stop(child);
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** An environment as a user's shell has it: Next's types make NODE_ENV required, a shell has none. */
type Env = Record<string, string | undefined>;
const shellEnv = (env: Env) => env as NodeJS.ProcessEnv;

/** A Node line's user: its PATH (that Node first), its own npm cache, the private registry. */
type NodeLine = { name: string; npmCache: string; env: Env };

function nodeLine(name: string, base: Env, nodedir: string): NodeLine {
  // No checkout on the path: npm run puts every node_modules/.bin above this checkout (and its node-gyp) on it.
  const PATH = (base.PATH ?? "")
    .split(path.delimiter)
    .filter((folder) => !folder.endsWith(path.join("node_modules", ".bin")) && !folder.endsWith("node-gyp-bin"))
    .join(path.delimiter);
  return { name, npmCache: tempFolder(`npm-${name}`), env: { PATH, npm_config_nodedir: nodedir } };
}

/** What a user's shell gives a command: that HOME, npm pointed at the private registry, nothing of this checkout. */
function userEnv(line: NodeLine, home: string, extra: Record<string, string> = {}): Env {
  return {
    ...line.env,
    HOME: home,
    npm_config_cache: line.npmCache,
    npm_config_registry: registry.url,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...extra,
  };
}

/** `npx -y baton-desk <args>` to its end, or until `timeout` ms (a start expected to refuse gets a short one, so one that serves fails instead of hanging). */
function npx(line: NodeLine, home: string, cwd: string, args: string[], extra: Record<string, string> = {}, timeout = 300_000) {
  return spawnSync("npx", ["-y", "baton-desk", ...args], { cwd, env: shellEnv(userEnv(line, home, extra)), encoding: "utf8", timeout });
}

/** `npx -y baton-desk` serving: resolves once the desk answers, with how long that took. */
async function serve(line: NodeLine, home: string, cwd: string): Promise<{ child: ChildProcess; url: string; output: () => string; startMs: number }> {
  const port = await freePort();
  const startedAt = performance.now();
  const child = spawn("npx", ["-y", "baton-desk"], { cwd, env: shellEnv(userEnv(line, home, { PORT: String(port) })), detached: true });
  children.add(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npx -y baton-desk exited (${child.exitCode}):\n${output}`);
    const status = await fetch(`${url}/`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, url, output: () => output, startMs: performance.now() - startedAt };
}

function repository(): string {
  const repo = tempFolder("repo");
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
  execFileSync("git", ["remote", "add", "origin", "git@github.com:acme/packaged.git"], { cwd: repo });
  return repo;
}

/** A handoff from chat waiting in `repo`, written through the package's own MCP server run there. */
async function waitingHandoff(line: NodeLine, home: string, repo: string, title: string): Promise<string> {
  const { client } = await connectStdioClient({ command: { command: "npx", args: ["-y", "baton-desk", "mcp"] }, cwd: repo, env: userEnv(line, home), inheritEnv: false });
  try {
    const created = await client.callTool({ name: "create_handoff", arguments: { title, content: "Waiting for the next session" } });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    return (created.structuredContent as { handoff: { id: string } }).handoff.id;
  } finally {
    await client.close();
  }
}

/** Runs a hook command as Claude Code does: through a shell, the event's JSON on stdin. */
function runHook(command: string, repo: string, env: Env) {
  const input = JSON.stringify({ session_id: "s", cwd: repo, hook_event_name: "SessionStart", source: "startup" });
  return spawnSync("sh", ["-c", command], { cwd: repo, env: shellEnv(env), input, encoding: "utf8", timeout: 120_000 });
}

function claude(home: string, cwd: string, env: Env, ...args: string[]): string {
  const run = spawnSync(claudeBin, args, { cwd, env: shellEnv({ ...env, HOME: home }), encoding: "utf8", timeout: 120_000 });
  return `${run.stdout}${run.stderr}`;
}

/** Every file under `folder` with its size and modification time. */
function listing(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of fs.readdirSync(folder, { recursive: true, encoding: "utf8" })) {
    const stat = fs.lstatSync(path.join(folder, file));
    files[file] = stat.isDirectory() ? "dir" : `${stat.size}:${stat.mtimeMs}`;
  }
  return files;
}

const npmMessage = /^npm (warn|notice)/;

describe("npx -y baton-desk on this machine's Node", () => {
  let line: NodeLine;
  let installedFolder: string;
  let cacheBefore: Record<string, string>;
  beforeAll(() => {
    line = nodeLine("machine", process.env, "/usr");
  });

  it("serves the desk from an empty folder with an empty HOME, its database in HOME's data folder; a second start serves from the warm cache", { timeout: 600_000 }, async () => {
    const home = tempFolder("home");
    const first = await serve(line, home, tempFolder("empty"));
    const page = await fetch(`${first.url}/`).then((response) => response.text());
    expect(page).toContain("<html");
    expect(first.output()).toContain(`baton: serving ${first.url}`);
    expect(first.output()).toContain("npx baton-desk setup claude-code");
    await stop(first.child);
    expect(fs.existsSync(path.join(home, ".local", "share", "baton", "baton.db"))).toBe(true);
    // Every handoff is in there: the machine's other users may not even list it.
    expect((fs.statSync(path.join(home, ".local", "share", "baton")).mode & 0o777).toString(8)).toBe("700");

    // npx's install of baton-desk: its only folder so far.
    const [hash] = fs.readdirSync(path.join(line.npmCache, "_npx"));
    const installed = path.join(line.npmCache, "_npx", hash);
    installedFolder = installed;
    cacheBefore = listing(installed);
    const sizes = execFileSync("du", ["-sm", installed], { encoding: "utf8" }).split("\t")[0];
    const starts: number[] = [];
    for (let round = 0; round < 3; round++) {
      const warm = await serve(line, home, tempFolder("empty"));
      starts.push(warm.startMs);
      await stop(warm.child);
    }
    console.log(
      `package: ${(fs.statSync(tarball).size / 1e6).toFixed(1)} MB packed; npx installs ${sizes} MB; warm start to the first page ${starts.map((ms) => ms.toFixed(0)).join(", ")} ms (median ${median(starts).toFixed(0)} ms)`,
    );
  });

  it("npx -y baton-desk mcp passes the MCP contract", { timeout: 120_000 }, async () => {
    const home = tempFolder("home");
    const { client } = await connectStdioClient({ command: { command: "npx", args: ["-y", "baton-desk", "mcp"] }, cwd: tempFolder("empty"), env: userEnv(line, home), inheritEnv: false });
    try {
      await expectMcpContract(client, { title: "From the package" });
    } finally {
      await client.close();
    }
    expect(fs.existsSync(path.join(home, ".local", "share", "baton", "baton.db"))).toBe(true);
  });

  it("setup claude-code --user is Connected in claude mcp list, and its SessionStart hook, exactly as written, brings a waiting handoff", { timeout: 300_000 }, async () => {
    const home = tempFolder("home");
    const repo = repository();
    const setup = npx(line, home, repo, ["setup", "claude-code", "--user"]);
    expect(setup.status, setup.stderr).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(home, ".claude", "settings.json"), "utf8")) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const command = settings.hooks.SessionStart[0].hooks[0].command;
    // Never npm's npx cache (pruned): a copy of the runtime in the user's data folder.
    const runtime = path.join(home, ".local", "share", "baton", "runtime", version, "bin", "baton.mjs");
    expect(command).toBe(`node ${runtime} hook session-start`);
    expect(JSON.stringify(settings)).not.toContain(line.npmCache);

    // Claude Code and its hooks run with the user's own environment: no registry, no npm cache.
    const userShell = { PATH: line.env.PATH, HOME: home, DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" };
    expect(claude(home, repo, userShell, "mcp", "list")).toMatch(new RegExp(`baton: node ${runtime} mcp --as code - .*Connected`));

    const id = await waitingHandoff(line, home, repo, "Picked up from the package");
    const ran = runHook(command, repo, userShell);
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout, ran.stderr).toContain(id);
    expect(JSON.parse(ran.stdout).hookSpecificOutput.additionalContext).toContain(id);

    const hookMs: number[] = [];
    const bareMs: number[] = [];
    for (let round = 0; round < 5; round++) {
      let startedAt = performance.now();
      runHook(command, repo, userShell);
      hookMs.push(performance.now() - startedAt);
      startedAt = performance.now();
      spawnSync("node", ["-e", ""], { env: shellEnv(userShell) });
      bareMs.push(performance.now() - startedAt);
    }
    console.log(`package: SessionStart hook as written ${median(hookMs).toFixed(0)} ms, bare node -e '' ${median(bareMs).toFixed(0)} ms (×${(median(hookMs) / median(bareMs)).toFixed(1)}, medians of 5)`);
  });

  it("the plugin installs from this repository's marketplace: its hooks are listed, its server is Connected, its SessionStart hook brings a waiting handoff, never a repository's own baton-desk", { timeout: 300_000 }, async () => {
    // A marketplace install is a plain clone: the marketplace's own files, no node_modules.
    const marketplace = tempFolder("marketplace");
    for (const entry of [".claude-plugin", "plugins"]) fs.cpSync(path.join(projectRoot, entry), path.join(marketplace, entry), { recursive: true });
    const plugin = JSON.parse(fs.readFileSync(path.join(marketplace, "plugins", "baton", ".claude-plugin", "plugin.json"), "utf8")) as { version: string };
    expect(plugin.version).toBe(version);
    const home = tempFolder("home");
    const repo = repository();
    const env = userEnv(line, home);
    expect(claude(home, repo, env, "plugin", "marketplace", "add", marketplace)).toMatch(/Successfully added marketplace: baton/);
    expect(claude(home, repo, env, "plugin", "install", "baton@baton")).toMatch(/Successfully installed plugin: baton@baton/);
    const details = claude(home, repo, env, "plugin", "details", "baton@baton");
    for (const part of ["SessionStart", "Stop", "PreCompact", "baton"]) expect(details).toContain(part);
    // The pinned spec gets an npx folder of its own, whose first install compiles better-sqlite3
    // again (longer than Claude Code's 30 s connection timeout; a user's first session waits for
    // that once). The install itself is the first test's: give the pinned spec a copy of that
    // folder under the name npx looks for (it checks the copy holds baton-desk@<version>), and
    // save the suite a second compile.
    const npxFolders = path.join(line.npmCache, "_npx");
    fs.cpSync(installedFolder, path.join(npxFolders, npxFolderName(`baton-desk@${version}`)), { recursive: true, verbatimSymlinks: true });
    expect(spawnSync("npx", ["-y", `baton-desk@${version}`, "--help"], { env: shellEnv(env), encoding: "utf8", timeout: 300_000 }).status).toBe(0);
    const id = await waitingHandoff(line, home, repo, "Picked up through the plugin");

    // A cloned repository may carry a node_modules/baton-desk of its own at the pinned version:
    // npx run in it would start that one (Claude Code starts the server and the hooks there).
    const planted = path.join(repo, "node_modules", "baton-desk");
    fs.mkdirSync(path.join(planted, "bin"), { recursive: true });
    fs.writeFileSync(path.join(repo, "package.json"), JSON.stringify({ name: "cloned", version: "1.0.0", dependencies: { "baton-desk": version } }));
    fs.writeFileSync(path.join(planted, "package.json"), JSON.stringify({ name: "baton-desk", version, bin: { baton: "bin/baton.mjs" } }));
    fs.writeFileSync(path.join(planted, "bin", "baton.mjs"), '#!/usr/bin/env node\nconsole.log("the repository\'s own baton-desk ran");\n', { mode: 0o755 });
    fs.mkdirSync(path.join(repo, "node_modules", ".bin"));
    fs.symlinkSync(path.join("..", "baton-desk", "bin", "baton.mjs"), path.join(repo, "node_modules", ".bin", "baton"));

    expect(claude(home, repo, env, "mcp", "list")).toMatch(new RegExp(`baton.*npx --prefix \\S+ -y baton-desk@${version.replace(/\./g, "\\.")} mcp --as code - .*Connected`));
    const installedHooks = fs
      .readdirSync(path.join(home, ".claude", "plugins"), { recursive: true, encoding: "utf8" })
      .find((file) => file.endsWith(path.join("hooks", "hooks.json")));
    expect(installedHooks).toBeDefined();
    const hooks = JSON.parse(fs.readFileSync(path.join(home, ".claude", "plugins", installedHooks!), "utf8")) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const command = hooks.hooks.SessionStart[0].hooks[0].command;
    expect(command).toBe(`npx --prefix "\${CLAUDE_PLUGIN_ROOT}" -y baton-desk@${version} hook session-start`);
    // As Claude Code runs a plugin's hook: in the session's folder, CLAUDE_PLUGIN_ROOT set to the installed plugin.
    const ran = runHook(command, repo, { ...env, CLAUDE_PLUGIN_ROOT: path.join(home, ".claude", "plugins", path.dirname(path.dirname(installedHooks!))) });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout, ran.stderr).toContain(id);
    expect(JSON.parse(ran.stdout).hookSpecificOutput.additionalContext).toContain(id);
  });

  it("an unwritable data folder gets one line and exit code 1, from the desk and from the MCP server", { timeout: 120_000 }, () => {
    const home = tempFolder("home");
    const blocker = path.join(home, "not-a-folder");
    fs.writeFileSync(blocker, "");
    for (const args of [[], ["mcp"]]) {
      const run = npx(line, home, tempFolder("empty"), args, { BATON_DATA_DIR: path.join(blocker, "data") });
      expect(run.status).toBe(1);
      const lines = run.stderr.split("\n").filter((text) => text && !npmMessage.test(text));
      expect(lines).toEqual([`baton: cannot write to the data folder ${path.join(blocker, "data")} (ENOTDIR); choose another with BATON_DATA_DIR=<folder>`]);
      expect(run.stdout).toBe("");
    }
  });

  it("a relative XDG_DATA_HOME or XDG_CACHE_HOME is ignored, as the XDG specification says: one desk whatever the current folder", { timeout: 120_000 }, () => {
    const home = tempFolder("home");
    const relative = { XDG_DATA_HOME: "data", XDG_CACHE_HOME: "cache" };
    const [first, second] = [tempFolder("empty"), tempFolder("empty")];
    const created = npx(line, home, first, ["token", "create", "--name", "desk", "--role", "operator"], relative);
    expect(created.status, created.stderr).toBe(0);
    const listed = npx(line, home, second, ["token", "list"], relative);
    expect(listed.stdout, listed.stderr).toMatch(/^desk\toperator\t/m);
    expect(fs.existsSync(path.join(home, ".local", "share", "baton", "baton.db"))).toBe(true);
    expect(fs.readdirSync(path.join(home, ".cache", "baton", "code-cache", version)).filter((name) => /^cli\.node-\d+\.cache$/.test(name))).toHaveLength(1);
    expect([fs.readdirSync(first), fs.readdirSync(second)]).toEqual([[], []]);
  });

  it("--help lists start, the command baton alone runs, on standard output; --version prints the version; neither makes the data folder", { timeout: 120_000 }, () => {
    const home = tempFolder("home");
    const help = npx(line, home, tempFolder("empty"), ["--help"]);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^ {2}start {7}serve the desk/m);
    const shown = npx(line, home, tempFolder("empty"), ["--version"]);
    expect([shown.status, shown.stdout]).toEqual([0, `${version}\n`]);
    expect(fs.existsSync(path.join(home, ".local", "share", "baton"))).toBe(false);
  });

  it("--help into a pipe its reader already closed (baton --help | true) exits 0 without a stack trace", { timeout: 120_000 }, async () => {
    const child = spawn("npx", ["-y", "baton-desk", "--help"], { cwd: tempFolder("empty"), env: shellEnv(userEnv(line, tempFolder("home"))) });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|^\s+at /m);
  });

  it("start with arguments (start --port 4000) is refused in one line pointing at PORT, exit 2, and serves nothing and stores nothing", { timeout: 120_000 }, () => {
    const home = tempFolder("home");
    // PORT=0 and a short wait: a start that took the argument for nothing would serve, not end.
    const guessed = npx(line, home, tempFolder("empty"), ["start", "--port", "4000"], { PORT: "0" }, 60_000);
    expect(guessed.status, guessed.stdout).toBe(2);
    expect(guessed.stderr.split("\n").filter((text) => text && !npmMessage.test(text))).toEqual([
      'baton start: takes no arguments, got "--port"; the desk listens where HOST and PORT say: PORT=4000 npx baton-desk start',
    ]);
    expect(guessed.stdout).toBe("");
    expect(fs.existsSync(path.join(home, ".local", "share", "baton"))).toBe(false);
  });

  it("a mistyped PORT or BATON_AUTH, a port another program holds and a HOST that is no address here each end the start in one line saying what to change", { timeout: 300_000 }, async () => {
    const home = tempFolder("home");
    const typo = npx(line, home, tempFolder("empty"), [], { PORT: "30OO" });
    expect(typo.status).toBe(1);
    expect(typo.stderr.split("\n").filter((text) => text && !npmMessage.test(text))).toEqual(['baton: PORT must be a whole number from 0 to 65535 (0: any free port), got "30OO"']);
    expect(fs.existsSync(path.join(home, ".local", "share", "baton", "baton.db")), "nothing stored before the refusal").toBe(false);

    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const taken = npx(line, home, tempFolder("empty"), [], { PORT: String(port) });
      expect(taken.status).toBe(1);
      expect(taken.stderr).toContain(`baton: cannot listen on 127.0.0.1:${port}: another program (another Baton?) listens there; stop it, or choose another port with PORT=<port>`);
      expect(taken.stderr).not.toMatch(/^\s+at /m);
    } finally {
      holder.close();
    }
    // A mistyped BATON_AUTH would have served the open desk to whoever meant to close it.
    const open = npx(line, home, tempFolder("empty"), [], { BATON_AUTH: "requried", PORT: "0" }, 60_000);
    expect(open.status, open.stdout).toBe(1);
    expect(open.stderr).toContain('baton: refusing to start: BATON_AUTH is "requried": set it to required (every request needs a token or a sign-in), or leave it unset');
    // Beyond loopback a token must exist first; then a HOST that is no address of this machine.
    expect(npx(line, home, tempFolder("empty"), ["token", "create", "--name", "desk", "--role", "operator"]).status).toBe(0);
    const elsewhere = npx(line, home, tempFolder("empty"), [], { HOST: "192.0.2.1", PORT: String(port) });
    expect(elsewhere.status).toBe(1);
    expect(elsewhere.stderr).toContain(`baton: cannot listen on 192.0.2.1:${port}: HOST is no address of this machine (EADDRNOTAVAIL)`);
  });

  it("every hint names npx baton-desk, never npx baton (an unrelated package on the registry): the refusal to serve beyond loopback, a proxied request's 401, the sign-in and webhooks pages", { timeout: 300_000 }, async () => {
    const home = tempFolder("home");
    const strangers = /npx baton (token|webhook)/;
    const refused = npx(line, home, tempFolder("empty"), [], { HOST: "0.0.0.0", PORT: String(await freePort()) });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("`npx baton-desk token create --name NAME --role operator`");
    expect(refused.stderr).not.toMatch(strangers);

    const desk = await serve(line, home, tempFolder("empty"));
    try {
      const proxied = await fetch(`${desk.url}/api/handoffs`, { headers: { "x-forwarded-for": "203.0.113.7" } });
      expect(proxied.status).toBe(401);
      const refusal = await proxied.text();
      expect(refusal).toContain("`npx baton-desk token create --name NAME --role agent`");
      expect(refusal).not.toMatch(strangers);
      for (const [page, hint] of [
        ["/sign-in", "npx baton-desk token create"],
        ["/settings/webhooks", "npx baton-desk webhook add"],
      ]) {
        // Without the markers React puts between adjacent pieces of text.
        const html = (await fetch(`${desk.url}${page}`).then((response) => response.text())).replaceAll("<!-- -->", "");
        expect(html, page).toContain(hint);
        expect(html, page).not.toMatch(strangers);
      }
    } finally {
      await stop(desk.child);
    }
  });

  it("nothing a user ran wrote inside the package or npm's npx cache", () => {
    expect(cacheBefore).toBeDefined();
    expect(listing(installedFolder)).toEqual(cacheBefore);
  });
});

// On Node 24 the block above is already the package on Node 24.
describe.skipIf(RUNNING_MAJOR === 24)("the same package on Node 24", () => {
  let line: NodeLine;
  beforeAll(() => {
    const node = ltsNode(24);
    line = nodeLine("node24", node.env, node.home);
  }, 300_000);

  it("npx -y baton-desk mcp passes the MCP contract and npx -y baton-desk serves the desk", { timeout: 600_000 }, async () => {
    const home = tempFolder("home");
    const desk = await serve(line, home, tempFolder("empty"));
    expect(await fetch(`${desk.url}/`).then((response) => response.text())).toContain("<html");
    await stop(desk.child);
    const { client } = await connectStdioClient({ command: { command: "npx", args: ["-y", "baton-desk", "mcp"] }, cwd: tempFolder("empty"), env: userEnv(line, home), inheritEnv: false });
    try {
      const versionSeen = spawnSync("node", ["--version"], { env: shellEnv(line.env), encoding: "utf8" }).stdout.trim();
      expect(versionSeen).toMatch(/^v24\./);
      await expectMcpContract(client, { title: "From the package on Node 24" });
    } finally {
      await client.close();
    }
  });
});
