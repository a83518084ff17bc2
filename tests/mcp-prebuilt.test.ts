import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BATON_TOOL_NAMES, connectStdioClient } from "./support/mcp-clients";
import { temporaryFolders } from "./support/temp-folders";
import { describeDatabase } from "../lib/config";
import { projectRoot } from "../lib/paths.mjs";
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { codeCacheFile, freshEntry, manifestFile } from "../lib/prebuilt/prebuilt.mjs";
import { CODE_CACHE_DELAY_MS } from "../lib/mcp/launch.mjs";
import { ltsNode } from "./support/lts-node";

// A folder outside the checkout, as a user's repository would be; removed after the file's tests.
const elsewhere = temporaryFolders("baton-elsewhere-");

describe("the prebuilt MCP server (lib/mcp/launch.mjs)", () => {
  it("serves every tool with plain Node on the configured database", { timeout: 120_000 }, async () => {
    const entry = await ensurePrebuilt("mcp");
    expect(freshEntry("mcp")).toBe(entry);
    const { client, stderr } = await connectStdioClient({ entry: "launch", args: ["--as", "code"] });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(BATON_TOOL_NAMES);
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "Prebuilt", content: "from the prebuilt server" } });
      const { handoff, entries } = created.structuredContent as { handoff: { id: string }; entries: { from_client: string }[] };
      expect(entries[0].from_client).toBe("code");
      const read = await client.callTool({ name: "get_handoff", arguments: { id: handoff.id } });
      expect((read.structuredContent as { new_count: number }).new_count).toBe(0);
      expect(stderr()).toContain(`database ${describeDatabase()}`);
      // A moment after start-up the server leaves V8's code cache for the next start.
      await expect.poll(() => fs.existsSync(codeCacheFile(entry)), { timeout: 15_000 }).toBe(true);
    } finally {
      await client.close();
    }
    // The next start runs from the cache, Prisma's dynamic imports included.
    const cached = await connectStdioClient({ entry: "launch" });
    try {
      const again = await cached.client.callTool({ name: "create_handoff", arguments: { title: "Cached", content: "from the code cache" } });
      expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
      expect(cached.stderr()).not.toMatch(/could not/);
    } finally {
      await cached.client.close();
    }
  });

  it("on Node 22, whose launcher sets V8's tier-up count before loading it (lib/mcp/tiering.mjs), the next start runs the code cache the first wrote", { timeout: 120_000 }, async () => {
    const entry = await ensurePrebuilt("mcp");
    const node22 = ltsNode(22);
    const cacheFile = codeCacheFile(entry, execFileSync(node22.node, ["-p", "process.versions.modules"], { encoding: "utf8" }).trim());
    const start = () => connectStdioClient({ entry: "launch", command: { command: node22.node, args: [path.join(projectRoot, "lib", "mcp", "launch.mjs")] } });
    const first = await start();
    try {
      expect((await first.client.callTool({ name: "create_handoff", arguments: { title: "Node 22", content: "first start" } })).isError).toBeFalsy();
      await expect.poll(() => fs.existsSync(cacheFile), { timeout: 15_000 }).toBe(true);
    } finally {
      await first.client.close();
    }
    const written = fs.statSync(cacheFile);
    // A cache V8 refuses (made under other flags) is written again CODE_CACHE_DELAY_MS after the start.
    const second = await start();
    try {
      expect((await second.client.callTool({ name: "create_handoff", arguments: { title: "Node 22", content: "second start" } })).isError).toBeFalsy();
      await new Promise((resolve) => setTimeout(resolve, CODE_CACHE_DELAY_MS + 1_500));
      expect(second.stderr()).not.toMatch(/could not/);
    } finally {
      await second.client.close();
    }
    const after = fs.statSync(cacheFile);
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  });

  it("builds wherever the command was started: `baton mcp` in a user's repository prebuilds itself there", { timeout: 120_000 }, () => {
    // As launch.mjs prebuilds in-process: the process's folder is the client's, not the checkout (esbuild resolved the jsonc-parser alias from it and failed).
    const script = `import(${JSON.stringify(path.join(projectRoot, "lib", "prebuilt", "build.ts"))}).then((m) => m.prebuildCommand("cli")).then((entry) => console.log(entry))`;
    const tsx = pathToFileURL(path.join(projectRoot, "node_modules", "tsx", "dist", "esm", "index.mjs")).href;
    const entry = execFileSync(process.execPath, ["--import", tsx, "--input-type=module", "-e", script], {
      cwd: elsewhere(),
      env: { ...process.env, TSX_TSCONFIG_PATH: path.join(projectRoot, "tsconfig.json") },
      encoding: "utf8",
    }).trim();
    expect(fs.existsSync(entry)).toBe(true);
    expect(freshEntry("cli")).toBe(entry);
  });

  it("`baton setup claude-code` run from the CLI's build prebuilds a stale hook (esbuild's API, which refuses to run bundled, stays outside)", { timeout: 120_000 }, async () => {
    await ensurePrebuilt("cli");
    const repository = elsewhere();
    execFileSync("git", ["init", "-q"], { cwd: repository });
    // The hook's own launcher newer than its build: the hook is stale, the CLI's build is not.
    const launcher = path.join(projectRoot, "lib", "hooks", "launch.mjs");
    const { atime, mtime } = fs.statSync(launcher);
    const startedAt = Date.now();
    let setup: ReturnType<typeof spawnSync>;
    try {
      fs.utimesSync(launcher, atime, new Date(Date.now() + 60_000));
      expect(freshEntry("hook")).toBeNull();
      expect(freshEntry("cli")).not.toBeNull();
      setup = spawnSync(process.execPath, [path.join(projectRoot, "bin", "baton.mjs"), "setup", "claude-code"], {
        cwd: repository,
        env: { ...process.env, HOME: elsewhere() },
        encoding: "utf8",
      });
    } finally {
      fs.utimesSync(launcher, atime, mtime);
    }
    expect(setup.status, String(setup.stderr)).toBe(0);
    expect(String(setup.stderr)).not.toMatch(/could not prebuild/);
    const hook = JSON.parse(fs.readFileSync(manifestFile("hook"), "utf8")) as { entry: string; builtAt: number };
    expect(hook.builtAt).toBeGreaterThanOrEqual(startedAt);
    expect(fs.existsSync(hook.entry)).toBe(true);
  });

  it("counts as stale once any source it was built from is newer; launch then runs the sources and prebuilds again", async () => {
    await ensurePrebuilt("mcp");
    const source = path.join(projectRoot, "lib", "mcp", "views.ts");
    const { atime, mtime } = fs.statSync(source);
    try {
      fs.utimesSync(source, atime, new Date(Date.now() + 60_000));
      expect(freshEntry("mcp")).toBeNull();
      const { client, stderr } = await connectStdioClient({ entry: "launch" });
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "From sources", content: "x" } });
      expect(created.isError).toBeFalsy();
      await client.close();
      expect(stderr()).toMatch(/serving over stdio as chat/);
    } finally {
      fs.utimesSync(source, atime, mtime);
    }
    expect(freshEntry("mcp")).not.toBeNull();
  });
});
