import "server-only";
import { existsSync } from "node:fs";
import { mentionedPaths, isNamed } from "./mentions";
import { readGitState, runGit } from "./read-state";
import { MAX_LISTED_COMMITS, MAX_LISTED_FILES, renderStaleness, type GitReport, type GitState, type Staleness } from "./types";

/** Same repository: the same remote when both have one, else the same root or the recorded commit is known here. */
async function sameRepository(recorded: GitState, reader: GitState, root: string): Promise<boolean> {
  if (recorded.remote && reader.remote) return normalizeRemote(recorded.remote) === normalizeRemote(reader.remote);
  if (recorded.root && recorded.root === reader.root) return true;
  if (recorded.head) return hasCommit(root, recorded.head);
  // An import names only a branch and files: nothing to tell repositories apart, so trust the reader.
  return recorded.root === null;
}

function normalizeRemote(remote: string): string {
  return remote
    .replace(/\.git\/?$/, "")
    .replace(/^[a-z]+:\/\//i, "")
    .replace(/^[^@/]+@/, "")
    .replace(":", "/")
    .toLowerCase();
}

async function hasCommit(root: string, commit: string): Promise<boolean> {
  return (await runGit(root, ["cat-file", "-t", commit])) === "commit";
}

/**
 * How the reader's repository at `folder` has moved on from `recorded`: commits since its HEAD,
 * a changed or deleted branch, and files the handoff names (`recorded.files`, paths in `texts`)
 * that changed since. null when there is no git or repository here, when it is another
 * repository, or when nothing moved on.
 */
export async function compareWithRepository(recorded: GitState, folder: string, texts: Iterable<string> = []): Promise<Staleness | null> {
  const reader = await readGitState(folder);
  if (!reader?.root) return null;
  const root = reader.root;
  // Same commit, same branch, clean tree: nothing can have moved on (the common case, one git round).
  if (recorded.head && reader.head === recorded.head && reader.branch === recorded.branch && reader.dirty === false) return null;
  if (!(await sameRepository(recorded, reader, root))) return null;

  let commitsSince = 0;
  let commits: string[] = [];
  let headMissing = false;
  let changedFiles: string[] = [];
  const named = new Set([...(recorded.files ?? []), ...mentionedPaths(texts)]);
  const moved = recorded.head !== null && reader.head !== null && reader.head !== recorded.head;
  const range = `${recorded.head}..${reader.head}`;
  const branchChanged = recorded.branch !== null && recorded.branch !== reader.branch;
  // One parallel round; a recorded commit this repository lacks makes the commit queries fail.
  const [known, count, log, diff, branchHead] = await Promise.all([
    recorded.head ? hasCommit(root, recorded.head) : null,
    moved ? runGit(root, ["rev-list", "--count", range]) : null,
    moved ? runGit(root, ["log", "--no-show-signature", `--max-count=${MAX_LISTED_COMMITS}`, "--format=%h %s", range]) : null,
    recorded.head && named.size > 0 ? runGit(root, ["diff", "--no-ext-diff", "--no-textconv", "--name-only", recorded.head, "--"]) : null,
    branchChanged ? runGit(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${recorded.branch}`]) : null,
  ]);
  if (recorded.head && !known) {
    headMissing = true;
  } else {
    commitsSince = Number(count ?? 0) || 0;
    commits = log ? log.split("\n").filter(Boolean) : [];
    changedFiles = (diff ? diff.split("\n") : []).filter((path) => path && isNamed(path, named)).slice(0, MAX_LISTED_FILES);
  }
  const branch: Staleness["branch"] = branchChanged && recorded.branch ? { from: recorded.branch, to: reader.branch, gone: branchHead === null } : null;

  if (commitsSince === 0 && !headMissing && !branch && changedFiles.length === 0) return null;
  const found = { commitsSince, commits, headMissing, branch, changedFiles };
  return { ...found, block: renderStaleness(found, recorded) };
}

/**
 * For the dashboard: compared with the recorded repository when that folder exists on this
 * machine (the server's), else only what the writer reported.
 */
export async function reportOnThisMachine(recorded: GitState, texts: Iterable<string>): Promise<GitReport> {
  if (!recorded.root || !existsSync(recorded.root)) return { recorded, staleness: null, compared: false };
  return { recorded, staleness: await compareWithRepository(recorded, recorded.root, texts), compared: true };
}
