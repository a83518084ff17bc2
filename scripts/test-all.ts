/**
 * `npm test`: typecheck and lint side by side, then unit/integration (vitest) and e2e (Playwright)
 * on the Node running it, then unit/integration again and a served smoke test on the other LTS
 * line users run (22 or 24, from the npm registry: tests/support/lts-node.ts), every suite run
 * even when an earlier one fails, then one line `N passed, N failed` adding all of them up (also
 * written to .test-results/summary.txt for .ci/run), with a line for each thing that failed just
 * above.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { MINIMUM_MAJOR, RUNNING_MAJOR } from "../lib/supported-node.mjs";
import { ltsNode } from "../tests/support/lts-node";
import { PACKED_TARBALL } from "../tests/support/packed-tarball";

const root = path.resolve(import.meta.dirname, "..");
const results = path.join(root, ".test-results");
fs.rmSync(results, { recursive: true, force: true });
fs.mkdirSync(results, { recursive: true });
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1" };

type Tally = { suite: string; passed: number; failed: number };

/** Why suites failed, a line each, printed just above the tallies: where a CI log is read from. */
const failures: string[] = [];

function run(command: string, args: string[], where: { cwd: string; env: NodeJS.ProcessEnv } = { cwd: root, env }): boolean {
  console.log(`\n$ ${path.basename(command)} ${args.join(" ")}`);
  return spawnSync(command, args, { ...where, stdio: "inherit" }).status === 0;
}

/**
 * Commands run side by side, each one's output printed whole once all have ended: typecheck and
 * lint each keep one core busy.
 */
async function runTogether(commands: { command: string; args: string[] }[]): Promise<boolean[]> {
  const runs = commands.map(async ({ command, args }) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, "close")) as [number | null];
    return { header: `\n$ ${path.basename(command)} ${args.join(" ")}`, output, ok: code === 0 };
  });
  const ended = await Promise.all(runs);
  for (const { header, output } of ended) console.log(output.trim() ? `${header}\n${output.trimEnd()}` : header);
  return ended.map((finished) => finished.ok);
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

/** vitest on the Node running this, or (`other`) on another line's Node. */
function vitest(suite: string, other?: { node: string; env: NodeJS.ProcessEnv }): Tally {
  const file = path.join(results, `${suite.replace(/\W+/g, "-")}.json`);
  const digest = `${file.slice(0, -".json".length)}-failures.txt`;
  const args = ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${file}`, "--reporter=./tests/support/failure-digest.ts"];
  const where = { cwd: root, env: { ...(other?.env ?? env), BATON_FAILURE_DIGEST: digest } };
  const ok = other ? run(other.node, [path.join(root, "node_modules", "vitest", "vitest.mjs"), ...args], where) : run(bin("vitest"), args, where);
  const reasons = fs.existsSync(digest) ? fs.readFileSync(digest, "utf8").trim() : null;
  if (reasons) failures.push(`${suite}:`, ...reasons.split("\n").map((line) => `  ${line}`));
  else if (!ok && reasons === null) failures.push(`${suite}:`, "  vitest ended before its run was reported; see its output above");
  else if (!ok) failures.push(`${suite}:`, "  vitest failed with every test, hook and worker clean: an error in its own process (global setup or teardown, a reporter); see its output above");
  const report = readJson<{ numPassedTests: number; numFailedTests: number; numTotalTestSuites: number }>(file);
  if (!report) return check(`${suite} (no report)`, false);
  // A crash outside any test (a file that fails to load) still fails the suite.
  const failed = report.numFailedTests + (ok || report.numFailedTests > 0 ? 0 : 1);
  return { suite, passed: report.numPassedTests, failed };
}

const startedAt = Date.now();

/** The tarball tests/package-install.test.ts packed (`npm run pack`) during this run, if it did. */
function packedThisRun(): string | null {
  return fs.existsSync(PACKED_TARBALL) && fs.statSync(PACKED_TARBALL).mtimeMs >= startedAt ? PACKED_TARBALL : null;
}

/**
 * The other LTS line: the unit/integration suite, and `npm start`'s server answering over a socket
 * (served from the build the e2e run just made). Every dependency's native code is Node-API, so
 * both lines share this checkout's node_modules.
 */
function onOtherLine(major: 22 | 24): Tally[] {
  let node: ReturnType<typeof ltsNode>;
  try {
    node = ltsNode(major);
  } catch (error) {
    console.error(`Node ${major}: could not install it from the npm registry: ${error instanceof Error ? error.message : String(error)}`);
    return [check(`unit/integration on Node ${major} (not run)`, false)];
  }
  // One engine here: what differs between Node lines is the runtime, not the SQL (both engines ran above).
  const lineEnv: NodeJS.ProcessEnv = { ...env, ...node.env, BATON_TEST_ENGINE: "sqlite" };
  // The package's install test runs here too: the package the first run packed, installed by this line's npx.
  const tarball = packedThisRun();
  if (tarball) lineEnv.BATON_PACKED_TARBALL = tarball;
  const unit = vitest(`unit/integration on Node ${major}`, { node: node.node, env: lineEnv });
  const build = `.next-e2e-${process.env.BATON_E2E_PORT || "3100"}`;
  let served = false;
  if (fs.existsSync(path.join(root, build))) {
    served = run(node.node, ["--import", "tsx", path.join(root, "scripts", "served-smoke.ts")], { cwd: root, env: { ...lineEnv, BATON_DIST_DIR: build } });
  } else console.error(`Node ${major}: no build at ${build} to serve (the e2e run makes it)`);
  return [unit, check(`served smoke on Node ${major}`, served)];
}

function playwright(): Tally {
  const port = process.env.BATON_E2E_PORT || "3100";
  const file = path.join(results, `e2e-${port}.json`);
  const ok = run(bin("playwright"), ["test"]);
  type Test = { status: string; results: { error?: { message?: string } }[] };
  type Suite = { file?: string; specs?: { title: string; file: string; tests: Test[] }[]; suites?: Suite[] };
  const report = readJson<{ stats: { expected: number; unexpected: number; flaky: number }; suites: Suite[]; errors?: { message?: string }[] }>(file);
  if (!report) return check("e2e (no report)", false);
  const failed = report.stats.unexpected + (ok || report.stats.unexpected > 0 ? 0 : 1);
  const specs = (suites: Suite[]): NonNullable<Suite["specs"]> => suites.flatMap((suite) => [...(suite.specs ?? []), ...specs(suite.suites ?? [])]);
  const firstLine = (message = "") => message.replace(/\u001b\[[0-9;]*m/g, "").split("\n")[0].slice(0, 300);
  const reasons: string[] = [];
  for (const spec of specs(report.suites)) {
    for (const test of spec.tests) {
      if (test.status === "flaky") console.log(`e2e: flaky (passed on retry): ${spec.title}`);
      if (test.status === "unexpected") reasons.push(`  ${spec.file} > ${spec.title}: ${firstLine(test.results.at(-1)?.error?.message)}`);
    }
  }
  for (const error of report.errors ?? []) reasons.push(`  outside its tests: ${firstLine(error.message)}`);
  if (reasons.length) failures.push("e2e:", ...reasons);
  return { suite: "e2e", passed: report.stats.expected + report.stats.flaky, failed };
}

if (RUNNING_MAJOR < MINIMUM_MAJOR) {
  console.error(`npm test: Baton runs on Node 22 and 24; this is Node ${process.versions.node} (put Node 22 or 24 first on PATH)`);
  fs.writeFileSync(path.join(results, "summary.txt"), "0 passed, 1 failed\n");
  console.log("0 passed, 1 failed");
  process.exit(1);
}

const [typechecked, linted] = await runTogether([
  { command: bin("tsc"), args: ["--noEmit"] },
  { command: bin("eslint"), args: ["--max-warnings", "0", "."] },
]);
/** `npm start`'s server on PostgreSQL, from the build the e2e run made (the e2e run itself serves SQLite). */
function servedOnPostgres(): Tally {
  const build = `.next-e2e-${process.env.BATON_E2E_PORT || "3100"}`;
  if (!fs.existsSync(path.join(root, build))) return check("served smoke on PostgreSQL (no build: the e2e run makes it)", false);
  return check("served smoke on PostgreSQL", run(process.execPath, ["--import", "tsx", path.join(root, "scripts", "served-smoke.ts"), "--postgres"], { cwd: root, env: { ...env, BATON_DIST_DIR: build } }));
}

const tallies = [
  check("typecheck", typechecked),
  check("lint", linted),
  vitest("unit/integration"),
  playwright(),
  servedOnPostgres(),
  ...onOtherLine(RUNNING_MAJOR === 22 ? 24 : 22),
];
console.log("");
if (failures.length) console.log(["what failed:", ...failures, ""].join("\n"));
for (const tally of tallies) console.log(`${tally.suite}: ${tally.passed} passed, ${tally.failed} failed`);
const passed = tallies.reduce((sum, tally) => sum + tally.passed, 0);
const failed = tallies.reduce((sum, tally) => sum + tally.failed, 0);
const summary = `${passed} passed, ${failed} failed`;
fs.writeFileSync(path.join(results, "summary.txt"), `${summary}\n`);
console.log(summary);
process.exit(failed === 0 ? 0 : 1);
