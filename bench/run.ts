/**
 * `npm run bench [name …]`: runs every bench/<name>.ts (or the named ones) but the shared
 * modules below. Each exports `run(): Promise<void>` and prints medians and ratios measured in
 * the same run; figures with a target (bench/targets.ts) end in bench/report.ts's table.
 *
 * Each of several benchmarks runs in a process of its own, as `npm run bench -- <name>` runs it
 * alone: one that serves (bench/live.ts starts Baton's server in its process) marks its process
 * as a server, whose code then refuses to run outside a request, and leaves its database and
 * timers behind; the next one in the same process failed on them. One that fails does not stop
 * the others; the run then ends with exit code 1, naming it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const here = import.meta.dirname;
const wanted = process.argv.slice(2);
/** Shared by the benchmarks, not benchmarks themselves. */
const SHARED = ["run.ts", "support.ts", "fixtures.ts", "report.ts", "targets.ts"];
const names = fs
  .readdirSync(here)
  .filter((file) => file.endsWith(".ts") && !SHARED.includes(file))
  .map((file) => file.replace(/\.ts$/, ""))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

if (names.length === 0) {
  console.error(`no benchmark named ${wanted.join(", ")}; have: ${fs.readdirSync(here).join(", ")}`);
  process.exit(2);
}
if (names.length === 1) {
  console.log(`\n=== bench/${names[0]}.ts`);
  const benchmark = (await import(pathToFileURL(path.join(here, `${names[0]}.ts`)).href)) as { run: () => Promise<void> };
  await benchmark.run();
} else {
  const tsx = path.join(here, "..", "node_modules", ".bin", "tsx");
  const failed = names.filter((name) => spawnSync(tsx, [import.meta.filename, name], { stdio: "inherit" }).status !== 0);
  if (failed.length > 0) {
    console.error(`\nbenchmarks that failed: ${failed.join(", ")}`);
    process.exitCode = 1;
  }
}
