/**
 * `npm test`: typecheck, lint, unit/integration (vitest) and e2e (Playwright), every suite run
 * even when an earlier one fails, then one line `N passed, N failed` adding all of them up
 * (also written to .test-results/summary.txt for .ci/run).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const results = path.join(root, ".test-results");
fs.rmSync(results, { recursive: true, force: true });
fs.mkdirSync(results, { recursive: true });
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1" };

type Tally = { suite: string; passed: number; failed: number };

function run(command: string, args: string[]): boolean {
  console.log(`\n$ ${path.basename(command)} ${args.join(" ")}`);
  return spawnSync(command, args, { cwd: root, env, stdio: "inherit" }).status === 0;
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as T;
  } catch {
    return null;
  }
}

function check(suite: string, ok: boolean): Tally {
  return { suite, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
}

function vitest(): Tally {
  const file = path.join(results, "vitest.json");
  const ok = run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${file}`]);
  const report = readJson<{ numPassedTests: number; numFailedTests: number; numTotalTestSuites: number }>(file);
  if (!report) return check("unit/integration (no report)", false);
  // A crash outside any test (a file that fails to load) still fails the suite.
  const failed = report.numFailedTests + (ok || report.numFailedTests > 0 ? 0 : 1);
  return { suite: "unit/integration", passed: report.numPassedTests, failed };
}

function playwright(): Tally {
  const port = process.env.BATON_E2E_PORT || "3100";
  const file = path.join(results, `e2e-${port}.json`);
  const ok = run(bin("playwright"), ["test"]);
  type Suite = { specs?: { title: string; tests: { status: string }[] }[]; suites?: Suite[] };
  const report = readJson<{ stats: { expected: number; unexpected: number; flaky: number }; suites: Suite[] }>(file);
  if (!report) return check("e2e (no report)", false);
  const failed = report.stats.unexpected + (ok || report.stats.unexpected > 0 ? 0 : 1);
  const flakyTitles = (suites: Suite[]): string[] =>
    suites.flatMap((suite) => [
      ...(suite.specs ?? []).filter((spec) => spec.tests.some((test) => test.status === "flaky")).map((spec) => spec.title),
      ...flakyTitles(suite.suites ?? []),
    ]);
  for (const title of flakyTitles(report.suites)) console.log(`e2e: flaky (passed on retry): ${title}`);
  return { suite: "e2e", passed: report.stats.expected + report.stats.flaky, failed };
}

const tallies = [
  check("typecheck", run(bin("tsc"), ["--noEmit"])),
  check("lint", run(bin("eslint"), ["--max-warnings", "0", "."])),
  vitest(),
  playwright(),
];
console.log("");
for (const tally of tallies) console.log(`${tally.suite}: ${tally.passed} passed, ${tally.failed} failed`);
const passed = tallies.reduce((sum, tally) => sum + tally.passed, 0);
const failed = tallies.reduce((sum, tally) => sum + tally.failed, 0);
const summary = `${passed} passed, ${failed} failed`;
fs.writeFileSync(path.join(results, "summary.txt"), `${summary}\n`);
console.log(summary);
process.exit(failed === 0 ? 0 : 1);
