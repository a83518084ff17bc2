import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { YOUNG_GENERATION_BYTES } from "../lib/server/heap-bounds";
import { projectRoot } from "../lib/paths.mjs";
import { ltsNode } from "./support/lts-node";

const PROBE = path.join(projectRoot, "tests", "support", "young-generation-probe.ts");

type ProbeReport = { youngGenerationBytes: number; shrunk: boolean; gcReachable: boolean };

/** The probe's report after its burst, on Node `major`, bounded as the server bounds it or not. */
function probe(major: 22 | 24, options: { bound: boolean; nodeOptions?: string }): ProbeReport {
  const output = execFileSync(ltsNode(major).node, ["--import", "tsx", PROBE, ...(options.bound ? ["--bound"] : [])], {
    cwd: projectRoot,
    env: { ...process.env, NODE_OPTIONS: options.nodeOptions ?? "" },
    encoding: "utf8",
  });
  return JSON.parse(output.trim().split("\n").at(-1)!) as ProbeReport;
}

const youngGenerationAfterBurst = (major: 22 | 24, options: { bound: boolean; nodeOptions?: string }) => probe(major, options).youngGenerationBytes;

describe("the server's heap bounds (lib/server/heap-bounds.ts)", () => {
  it.each([22, 24] as const)("keep the young generation within 32 MB after start-up and through a burst of requests on Node %i", (major) => {
    expect(youngGenerationAfterBurst(major, { bound: true })).toBeLessThanOrEqual(YOUNG_GENERATION_BYTES);
  });

  it("are needed on Node 24, whose V8 grows the young generation past 32 MB through the same start-up and burst", () => {
    expect(youngGenerationAfterBurst(24, { bound: false })).toBeGreaterThan(YOUNG_GENERATION_BYTES);
  });

  it("leave no `gc` behind for later code, in this context or a new one, once the shrink has collected (Node 24)", () => {
    const report = probe(24, { bound: true });
    expect(report.shrunk).toBe(true);
    expect(report.gcReachable).toBe(false);
  });

  it("leave the young generation to a user who sized it (NODE_OPTIONS=--max-semi-space-size)", () => {
    expect(youngGenerationAfterBurst(24, { bound: true, nodeOptions: "--max-semi-space-size=64" })).toBeGreaterThan(YOUNG_GENERATION_BYTES);
  });
});
