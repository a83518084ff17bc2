/**
 * Speed part `hook` (9, issue 19): `baton hook session-start` (Claude Code's SessionStart hook)
 * from spawn to exit, against bare `node -e ''`, with a handoff waiting and with none.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { addEntry, createHandoff } from "../../lib/handoffs";
import { ensurePrebuilt } from "../../lib/prebuilt/build";
import { freshEntry } from "../../lib/prebuilt/prebuilt.mjs";
import { msOf, type Figure } from "../report";
import { median, projectRoot } from "../support";
import { benchRepository, log, STARTS } from "./common";

/** Milliseconds from spawning `args` (with `input` on stdin) to its exit, and what it printed. */
export function runToExit(args: string[], input: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ ms: number; stdout: string }> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", () => resolve({ ms: performance.now() - start, stdout }));
  });
}

export async function hookStartUp(): Promise<Figure[]> {
  log(`\n9. baton hook session-start, spawn → exit (median of ${STARTS}, interleaved with bare node -e ''):`);
  await ensurePrebuilt("hook");
  const waitingRepo = benchRepository("git@github.com:bench/waiting.git");
  const quietRepo = benchRepository("git@github.com:bench/quiet.git");
  const { handoff } = await createHandoff({ title: "Waiting for code", content: "We decided on JWT; start in src/module1.ts.", asClient: "chat", repoPath: waitingRepo });
  await addEntry({ id: handoff.id, type: "task", content: "Refresh tokens for 30 days.", asClient: "chat" });
  const hook = [path.join(projectRoot, "bin", "baton.mjs"), "hook", "session-start"];
  const inputOf = (cwd: string) => JSON.stringify({ session_id: "bench", transcript_path: "/tmp/bench.jsonl", cwd, hook_event_name: "SessionStart", source: "startup" });
  try {
    const picked = await runToExit(hook, inputOf(waitingRepo), waitingRepo);
    if (!picked.stdout.includes(handoff.id)) throw new Error(`the hook did not bring the waiting handoff: ${picked.stdout.slice(0, 300)}`);
    if ((await runToExit(hook, inputOf(quietRepo), quietRepo)).stdout !== "") throw new Error("the hook printed something with nothing waiting");
    const samples = { waiting: [] as number[], quiet: [] as number[], node: [] as number[] };
    for (let round = 0; round < STARTS; round++) {
      samples.waiting.push((await runToExit(hook, inputOf(waitingRepo), waitingRepo)).ms);
      samples.quiet.push((await runToExit(hook, inputOf(quietRepo), quietRepo)).ms);
      samples.node.push((await runToExit(["-e", ""], "", quietRepo)).ms);
    }
    if (!freshEntry("hook")) log("  WARNING: a source changed meanwhile: some hooks may have run through tsx, not the prebuilt hook");
    log(`  a handoff waiting ${msOf(median(samples.waiting))} · nothing waiting ${msOf(median(samples.quiet))} · bare node -e '' ${msOf(median(samples.node))}`);
    const bareNode = { value: median(samples.node), label: "bare node" };
    return [
      { name: "hook session-start, a handoff waiting, start → exit", value: median(samples.waiting), unit: "ms", reference: bareNode },
      { name: "hook session-start, nothing waiting, start → exit", value: median(samples.quiet), unit: "ms", reference: bareNode },
    ];
  } finally {
    fs.rmSync(waitingRepo, { recursive: true, force: true });
    fs.rmSync(quietRepo, { recursive: true, force: true });
  }
}
