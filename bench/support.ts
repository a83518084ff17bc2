import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

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

/** A fresh data folder for one benchmark, pointed at by BATON_DATA_DIR / DATABASE_URL. */
export function makeTemporaryDataDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `baton-bench-${label}-`));
  process.env.BATON_DATA_DIR = dir;
  process.env.DATABASE_URL = `file:${path.join(dir, "baton.db")}`;
  return dir;
}

/** A production build in its own folder, served on `port` for the data folder in env. */
export async function startProductionServer(port: number): Promise<{ baseUrl: string; stop: () => void }> {
  const nextBin = path.join(projectRoot, "node_modules", ".bin", "next");
  const env = { ...process.env, BATON_DIST_DIR: ".next-bench", NEXT_TELEMETRY_DISABLED: "1" };
  execFileSync(nextBin, ["build"], { cwd: projectRoot, env, stdio: "ignore" });
  const server: ChildProcess = spawn(nextBin, ["start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: projectRoot,
    env,
    stdio: "ignore",
    detached: true,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if ((await fetch(baseUrl)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Negative pid: the whole process group, so next-server's child goes too.
  return { baseUrl, stop: () => process.kill(-server.pid!, "SIGTERM") };
}
