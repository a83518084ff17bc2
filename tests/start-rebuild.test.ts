import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./support/free-port";
import { temporaryFolders } from "./support/temp-folders";

/**
 * `npm start` (scripts/start.mjs) a second time from the same checkout while a server runs from
 * its build: the sources changed since, so it would rebuild, and a rebuild replaces the chunks the
 * running server's pages name (they answered 500 and its pages lost their scripts). The build is
 * a folder of its own in the checkout (BATON_DIST_DIR), removed afterwards.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const distName = `.next-start-rebuild-${process.pid}`;
const distDir = path.join(projectRoot, distName);
const tempFolder = temporaryFolders("baton-start-rebuild-");
const servers = new Set<ChildProcess>();

afterAll(async () => {
  for (const server of servers) await stop(server);
  fs.rmSync(distDir, { recursive: true, force: true });
});

type Started = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** `npm start`'s script in a process group of its own, on a data folder and port of its own. */
async function npmStart(): Promise<Started & { port: number }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: "127.0.0.1", PORT: String(port), BATON_DATA_DIR: tempFolder(), BATON_DIST_DIR: distName };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [path.join(projectRoot, "scripts", "start.mjs")], { cwd: projectRoot, env, detached: true });
  servers.add(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, port, output: () => output, exited };
}

async function stop(child: ChildProcess): Promise<void> {
  servers.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid!, "SIGTERM");
  await exited;
}

describe("npm start beside a running server", () => {
  it("does not rebuild under a server running from the build: one line, exit 1, and the running server's pages keep their scripts", { timeout: 600_000 }, async () => {
    const first = await npmStart();
    const url = `http://127.0.0.1:${first.port}`;
    for (;;) {
      if (first.child.exitCode !== null) throw new Error(`npm start exited:\n${first.output()}`);
      const up = await fetch(`${url}/api/health`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const scripts = [...(await fetch(`${url}/`).then((response) => response.text())).matchAll(/\/_next\/static\/[^"]+\.js/g)].map(([script]) => script);
    expect(scripts.length).toBeGreaterThan(0);

    // The sources changed since the build: as if edited, without touching anyone's files.
    const built = path.join(distDir, "baton-server", "server.mjs");
    fs.utimesSync(built, new Date(0), new Date(0));
    const second = await npmStart();
    const code = await Promise.race([second.exited, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 60_000))]);
    expect(code, second.output()).toBe(1);
    expect(second.output().trim().split("\n")).toEqual([
      `baton: the sources changed, but Baton (process ${first.child.pid}) serves the current build in ${distName}; stop it and start again to rebuild, or serve the current build beside it with BATON_SKIP_BUILD=1`,
    ]);
    for (const script of scripts) expect([script, (await fetch(`${url}${script}`)).status]).toEqual([script, 200]);

    // Stopped, the server takes its mark away: the next start builds.
    await stop(first.child);
    expect(fs.readdirSync(path.join(distDir, "running-servers"))).toEqual([]);
  });
});
