/**
 * `npm run bench [name …]`: runs every bench/<name>.ts (or the named ones) but the shared
 * modules below. Each exports `run(): Promise<void>` and prints medians and ratios measured in
 * the same run; figures with a target (bench/targets.ts) end in bench/report.ts's table.
 */
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
for (const name of names) {
  console.log(`\n=== bench/${name}.ts`);
  const benchmark = (await import(pathToFileURL(path.join(here, `${name}.ts`)).href)) as { run: () => Promise<void> };
  await benchmark.run();
}
