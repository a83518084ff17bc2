import { describe, expect, it } from "vitest";
import { crashViolations, describeCrashReport, runCrashScenario } from "./support/crash-rig";

// Issue 8, point 7: real writer processes (3 stdio MCP servers, 2 MCP HTTP doors each in its own
// process) append to shared threads while threads are closed; two of them are SIGKILLed mid-call
// and restarted. The longer run is `npm run bench crash`.
describe("crash safety: writers killed mid-call, threads closed mid-run", () => {
  it("keeps every acknowledged entry exactly once, nothing after a close, cursors in range, integrity ok", { timeout: 120_000 }, async () => {
    const report = await runCrashScenario({
      stdioWriters: 3,
      httpWriters: 2,
      openThreads: 3,
      kills: 2,
      closes: 3,
      until: { ms: 12_000 },
      maxMs: 60_000,
    });
    const summary = describeCrashReport(report).join("\n");
    console.log(summary);

    // The run exercised what it is meant to: a stdio and an HTTP writer killed and restarted,
    // closes acknowledged while appends kept arriving for the closed threads.
    expect(report.kills, summary).toBe(2);
    expect(report.restarts, summary).toBeGreaterThanOrEqual(2);
    expect(report.closes, summary).toBe(3);
    expect(report.acks, summary).toBeGreaterThan(100);
    expect(report.refusedAsCompleted, summary).toBeGreaterThan(0);

    expect(crashViolations(report), summary).toEqual([]);
    expect(report.problems, summary).toEqual([]);
  });
});
