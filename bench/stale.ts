/**
 * What staleness costs a reader (issue 12): get_handoff's domain call on a handoff recorded in a
 * git repository, without a reader's folder, with it when the repository is current, and with it
 * 3 commits later with a named file changed; plus readGitState alone (what a write adds). Since
 * issue 19 a comparison is remembered until the repository changes: the repeated reads above run
 * no git, and the first read after each commit (measured last) compares in full.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readGitState } from "../lib/git";
import { createHandoff, getHandoff } from "../lib/handoffs";
import { ensureMigrated } from "../lib/database/migrate";
import { makeTemporaryDataDir, median, ms, timeIt } from "./support";

export async function run(): Promise<void> {
  makeTemporaryDataDir("stale");
  await ensureMigrated();
  const repo = mkdtempSync(path.join(os.tmpdir(), "baton-bench-stale-"));
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@baton.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: repo });
  const commit = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), content);
    git("add", file);
    git("commit", "-q", "-m", `change ${file}`);
  };
  try {
    git("init", "-q", "-b", "main");
    for (let index = 0; index < 50; index++) commit(`src/module${index}.ts`, `export const v = ${index};\n`);
    const stale = await createHandoff({ title: "stale", content: "touches src/module3.ts and module7.ts", asClient: "code", repoPath: repo });
    // `fresh` is recorded after the commits below, so only `stale` has moved on.
    commit("src/module3.ts", "export const v = 'changed';\n");
    commit("docs/a.md", "a\n");
    commit("docs/b.md", "b\n");
    const fresh = await createHandoff({ title: "fresh", content: "touches src/module3.ts", asClient: "code", repoPath: repo });

    const plain = median(await timeIt(30, () => getHandoff({ id: stale.handoff.id })));
    const upToDate = median(await timeIt(30, () => getHandoff({ id: fresh.handoff.id, repoPath: repo })));
    const moved = median(await timeIt(30, () => getHandoff({ id: stale.handoff.id, repoPath: repo })));
    const state = median(await timeIt(30, () => readGitState(repo)));
    const afterCommit: number[] = [];
    for (let index = 0; index < 10; index++) {
      commit(`docs/c${index}.md`, `${index}\n`);
      const start = performance.now();
      await getHandoff({ id: stale.handoff.id, repoPath: repo });
      afterCommit.push(performance.now() - start);
    }
    console.log(`get_handoff without a folder: ${ms(plain)}`);
    console.log(`get_handoff, repository current: ${ms(upToDate)} (+${ms(upToDate - plain)})`);
    console.log(`get_handoff, 3 commits and a named file later: ${ms(moved)} (+${ms(moved - plain)})`);
    console.log(`get_handoff, the first read after a commit (compared in full): ${ms(median(afterCommit))} (+${ms(median(afterCommit) - plain)})`);
    console.log(`readGitState (what a recorded write adds): ${ms(state)}`);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}
