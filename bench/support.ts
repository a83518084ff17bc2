import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

export const projectRoot = path.resolve(import.meta.dirname, "..");

export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Runs `work` `times` times (after `warmup` unmeasured runs) and returns the timings in ms. */
export async function timeIt(times: number, work: () => Promise<unknown>, warmup = 2): Promise<number[]> {
  for (let index = 0; index < warmup; index++) await work();
  const samples: number[] = [];
  for (let index = 0; index < times; index++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return samples;
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;

const removedAtExit: string[] = [];
/** Removes `folder` when the run's process exits, however its benchmark ended (one listener for all of them). */
export function removeAtExit(folder: string): void {
  if (removedAtExit.length === 0) process.once("exit", () => removedAtExit.forEach((each) => fs.rmSync(each, { recursive: true, force: true })));
  removedAtExit.push(folder);
}

/** A fresh data folder for one benchmark, pointed at by BATON_DATA_DIR / DATABASE_URL, removed when the run's process exits. */
export function makeTemporaryDataDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `baton-bench-${label}-`));
  removeAtExit(dir);
  process.env.BATON_DATA_DIR = dir;
  process.env.DATABASE_URL = `file:${path.join(dir, "baton.db")}`;
  return dir;
}

export type ProductionServer = Pick<Spawned, "pid" | "stop" | "output"> & { baseUrl: string };

/**
 * A production build into its own folder (`distDir`, default .next-bench), served by
 * `scripts/start.mjs` as `npm start` serves it (the compiled server: the guard, the API router,
 * Next for pages), in a process group of its own, for the data folder in env. `build: false`
 * reuses the folder's last build.
 */
export async function startProductionServer(port: number, options: { distDir?: string; build?: boolean } = {}): Promise<ProductionServer> {
  const env = { ...process.env, BATON_DIST_DIR: options.distDir ?? ".next-bench", NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1", PORT: String(port) };
  if (options.build !== false) {
    execFileSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), [path.join(projectRoot, "scripts", "build-server.ts")], { cwd: projectRoot, env, stdio: ["ignore", "ignore", "inherit"] });
  }
  // Exactly what `npm start` runs: the compiled server in plain Node, from the build just made.
  const server = await spawnUntilReady([process.execPath, path.join(projectRoot, "scripts", "start.mjs")], { ...env, BATON_SKIP_BUILD: "1" }, 120_000, /^baton: serving /m);
  return { baseUrl: `http://127.0.0.1:${port}`, pid: server.pid, stop: server.stop, output: server.output };
}

export type Spawned = { pid: number; child: ChildProcess; stop: () => Promise<void>; /** the end of its stderr */ output: () => string };

/**
 * Starts `command` in its own process group and waits for it to print a line matching `ready`
 * (default: starting with "ready"); `stop` ends the whole group (Next's workers included) and waits for the process.
 */
export async function spawnUntilReady(command: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000, ready = /^ready/m): Promise<Spawned> {
  const child = spawn(command[0], command.slice(1), { cwd: projectRoot, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command.join(" ")} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    // The last few KB stay, to explain a server that dies later.
    child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000)));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command.join(" ")} exited (${code}) before it was ready:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid!,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    },
  };
}

/** `q` (0–1) of the samples, nearest rank. */
export function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Resident memory of a process in MB (VmRSS of /proc/<pid>/status). */
export function residentMb(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) / 1024;
}

/**
 * bench/workers/<name>.ts bundled into node_modules/.cache/baton-bench/<name>.mjs (packages stay
 * external and resolve from node_modules), so a floor runs with plain Node as Baton's prebuilt
 * MCP server does, not through tsx's loader.
 */
export async function bundleWorker(name: string): Promise<string> {
  const { build } = await import("esbuild");
  const outfile = path.join(projectRoot, "node_modules", ".cache", "baton-bench", `${name}.mjs`);
  await build({
    entryPoints: [path.join(projectRoot, "bench", "workers", `${name}.ts`)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "silent",
  });
  return outfile;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes (the writer's committedAt). */
export const now = () => performance.timeOrigin + performance.now();

/** An SSE subscriber's record: when each entry's change arrived. */
export type EventStream = { close: () => void; seen: Map<number, number> };

/** An SSE subscriber (what a page's EventSource does) of `url` (`/api/events…`), open once it saw `ready`. */
export async function openEventStream(url: string): Promise<EventStream> {
  const aborted = new AbortController();
  const response = await fetch(url, { signal: aborted.signal });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  const seen = new Map<number, number>();
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  void (async () => {
    const decoder = new TextDecoder();
    let text = "";
    const reader = response.body!.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const at = now();
        text += decoder.decode(value, { stream: true });
        const frames = text.split("\n\n");
        text = frames.pop()!;
        for (const frame of frames) {
          if (frame.includes("event: ready")) ready();
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!data || frame.includes("event: ")) continue;
          const change = JSON.parse(data) as { subject: string; entrySeq: number | null };
          if (change.subject === "entry" && change.entrySeq !== null) seen.set(change.entrySeq, at);
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  await isReady;
  return { seen, close: () => aborted.abort() };
}

export type LiveWriter = { write: () => Promise<{ entrySeq: number; committedAt: number }>; stop: () => void };

/** What one write said (its entry, when it committed by the writer's clock), and when it was asked for by this process's. */
export type Written = { entrySeq: number; committedAt: number; askedAt: number };

/**
 * Milliseconds from each of `writes` commits by `writer` to when `arrivedAt` says it was seen
 * (undefined: not yet; polled every millisecond).
 */
export async function measureLatency(writer: Pick<LiveWriter, "write">, writes: number, arrivedAt: (written: Written) => number | undefined): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < writes; index++) {
    const askedAt = now();
    const written = { ...(await writer.write()), askedAt };
    let at: number | undefined;
    while ((at = arrivedAt(written)) === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    samples.push(at - written.committedAt);
    // Writes land at random points of the feed's 100 ms check, as real ones do.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
  }
  return samples;
}

/**
 * Milliseconds from each of `writes` commits by `writer` to its event on `stream`. The event can
 * come before the writer reads its clock after the commit (two processes, two clocks): such an
 * event counts as seen at the commit, as bench/live.ts counts MCP notifications, never as a
 * negative latency.
 */
export function measureEventLatency(writer: Pick<LiveWriter, "write">, stream: EventStream, writes: number): Promise<number[]> {
  return measureLatency(writer, writes, ({ entrySeq, committedAt }) => {
    const at = stream.seen.get(entrySeq);
    return at === undefined ? undefined : Math.max(at, committedAt);
  });
}

/** bench/workers/live-writer.ts in a process of its own, appending to handoff `id` on each `write`. */
export function startLiveWriter(id: string): LiveWriter {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "workers", "live-writer.ts"), id], {
    cwd: projectRoot,
    env: process.env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const answers = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  let count = 0;
  return {
    write: async () => {
      child.stdin!.write(`${count++}\n`);
      const { value, done } = await answers.next();
      if (done) throw new Error("the writer process exited");
      return JSON.parse(value as string) as { entrySeq: number; committedAt: number };
    },
    stop: () => child.kill(),
  };
}
