/**
 * What several parts of `npm run bench -- speed` share: their sizes, the threads they write
 * through the domain and the git repositories they read in.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { addEntry, createHandoff, markRead } from "../../lib/handoffs";
import { removeAtExit } from "../support";

export const STDIO_CALLS = 300;
export const THREAD_SIZE = 300;
export const HTTP_SECONDS = 5;
/** Start-up timings are the median of this many spawns. */
export const STARTS = 7;
/** The dashboard's build for the parts that serve it. */
export const DIST_DIR = ".next-bench-speed";

export const log = (line: string) => console.log(line);

/** The text of a bench thread's entry `index`. */
export const contentOf = (index: number) => `entry ${index} `.repeat(10);

/** A thread of `size` entries written through the domain, read to the end by chat; recorded in `repoPath`'s repository when given. */
export async function threadOf(size: number, title: string, repoPath?: string): Promise<string> {
  const { handoff } = await createHandoff({ title, content: contentOf(0), repoPath });
  for (let index = 1; index < size; index++) {
    await addEntry({ id: handoff.id, type: index % 2 ? "progress" : "question", content: contentOf(index), asClient: index % 2 ? "code" : "chat" });
  }
  await markRead({ id: handoff.id, asClient: "chat" });
  return handoff.id;
}

/** A repository of 20 committed files with `origin` set, in a temporary folder removed when the run's process exits. */
export function benchRepository(origin: string): string {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-repo-")));
  removeAtExit(repo);
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@baton.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: repo });
  git("init", "-q", "-b", "main");
  git("remote", "add", "origin", origin);
  fs.mkdirSync(path.join(repo, "src"));
  for (let index = 0; index < 20; index++) fs.writeFileSync(path.join(repo, "src", `module${index}.ts`), `export const v = ${index};\n`);
  git("add", ".");
  git("commit", "-q", "-m", "initial");
  return repo;
}
