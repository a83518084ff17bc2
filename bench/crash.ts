/**
 * Crash safety, the long run (issue 8, acceptance 5): 16 writer processes (12 stdio MCP servers,
 * 4 MCP HTTP doors each in its own process) append to shared threads until 10,000 appends are
 * acknowledged, while 6 threads are closed and 6 writers are SIGKILLed mid-call and restarted.
 * Prints throughput, add latency and what the database shows; exits 1 on any violation.
 * The same driver (tests/support/crash-rig.ts) runs a short version in the test suite.
 */
import fs from "node:fs";
import { ensurePrebuilt } from "../lib/prebuilt/build";
import { ensureMigrated } from "../lib/database/migrate";
import { checkCrashRun, crashViolations, describeCrashReport, runCrashScenario } from "../tests/support/crash-rig";
import { makeTemporaryDataDir } from "./support";

export async function run(): Promise<void> {
  const dir = makeTemporaryDataDir("crash");
  await ensureMigrated();
  await ensurePrebuilt("mcp");
  const report = checkCrashRun(await runCrashScenario({
    stdioWriters: 12,
    httpWriters: 4,
    openThreads: 8,
    kills: 6,
    closes: 6,
    until: { acks: 10_000 },
    maxMs: 20 * 60_000,
    log: (line) => console.log(`  ${line}`),
  }));
  for (const line of describeCrashReport(report)) console.log(line);
  const violations = crashViolations(report);
  console.log(violations.length === 0 ? "verdict: 0 lost, 0 duplicated, 0 accepted after close, integrity ok" : `verdict: FAILED (${violations.join(", ")})`);
  if (violations.length > 0) process.exitCode = 1;
  fs.rmSync(dir, { recursive: true, force: true });
}
