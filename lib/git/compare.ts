import "server-only";
import { hash } from "node:crypto";
import fs, { existsSync } from "node:fs";
import path from "node:path";
import { LRUCache } from "lru-cache";
import { commitArrivalStamp, fileStamp, locateRepository, repositoryFingerprint, type RepositoryDirs } from "./fingerprint";
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

/** A remote URL in one form for comparing: no scheme, user, `.git` or case (`git@host:a/b` = `https://host/a/b`). */
export function normalizeRemote(remote: string): string {
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
 * Comparisons already made, per (reader's folder, recorded state, paths the texts mention), with
 * the repository's fingerprint (lib/git/fingerprint.ts) they were made at: a text matters to the
 * comparison only through the paths it names, so an entry naming none (or only named ones)
 * leaves the comparison standing. A read of a repository that has not
 * moved since checks the fingerprint (a few stats) and runs no git at all; any commit, checkout,
 * `git add`, fetch, new remote or edit of a file the handoff names by its path changes the
 * fingerprint, and that read compares in full. The least recently used goes first (lru-cache),
 * and what is kept is bounded in characters too: a handoff may name hundreds of long paths (an
 * import's files, its entries' mentions), each in the key, the watched files and the fingerprint.
 */
const MAX_REMEMBERED = 256;
const MAX_REMEMBERED_CHARS = 8 * 1024 * 1024;
/**
 * `found`: changed files the comparison listed that `files` does not watch, with their stamps
 * after it (`foundStamps`). `arrival`: when the recorded commit was missing, where it would arrive
 * (commitArrivalStamp); else null (a commit once here stays: only a gc, which rewrites packed-refs, prunes).
 */
type Remembered = { fingerprint: string; files: string[]; found: string[]; foundStamps: string; arrival: string | null; result: Staleness | null };
const charsOf = (files: string[]) => files.reduce((chars, file) => chars + file.length, 0);
const remembered = new LRUCache<string, Remembered>({
  max: MAX_REMEMBERED,
  maxSize: MAX_REMEMBERED_CHARS,
  sizeCalculation: (kept, key) => key.length + kept.fingerprint.length + charsOf(kept.files) + charsOf(kept.found) + kept.foundStamps.length,
});

const stampsOf = (files: string[]) => files.map(fileStamp).join("|");

/**
 * How far a file's times may lag the clock: Linux stamps them from a coarse clock (a scheduler
 * tick, up to 10 ms behind), so a write while git ran can carry a time from just before it began.
 */
const FILE_CLOCK_LAG_MS = 20;

/** Whether `file` was written at or after `since` (a missing file was not): then what git read of it may be older than its stamp. */
function writtenSince(file: string, since: number): boolean {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat !== undefined && Math.max(stat.mtimeMs, stat.ctimeMs) >= since - FILE_CLOCK_LAG_MS;
}

type Mentions = { paths: Set<string>; digest: string };

/**
 * The mentions of frozen text lists, which cannot change: a thread read again unchanged hands
 * over the same frozen list (lib/handoffs' remembered reads), so its 300 texts are looked up once.
 */
const frozenMentions = new WeakMap<readonly string[], Mentions>();

function mentionsOf(texts: readonly string[]): Mentions {
  let mentions = frozenMentions.get(texts);
  if (mentions === undefined) {
    const paths = mentionedPaths(texts);
    mentions = { paths, digest: hash("sha1", [...paths].join("\0"), "base64") };
    if (Object.isFrozen(texts)) frozenMentions.set(texts, mentions);
  }
  return mentions;
}

/**
 * Work-tree files the handoff names by a path inside the repository, to notice an edit before
 * `git add`: from the top, and from the reader's folder when that is below it (an agent started
 * in a monorepo's package writes `src/app.ts` for `packages/web/src/app.ts`, which git's diff
 * names from the top and isNamed matches). Every named path, each a stat per read (3-5 µs
 * here, so a thread naming the most, 500 paths from two folders, costs its read a few ms, still
 * less than the git it saves): the comparison lists any of them, and a cap left the ones named
 * last (the newest entries') unwatched. What is named is bounded already (MAX_MENTIONS, MAX_RECORDED_FILES).
 */
function watchedFiles({ top, folder }: RepositoryDirs, named: Set<string>): string[] {
  const bases = folder === top ? [top] : [top, folder];
  const files: string[] = [];
  for (const name of named) {
    if (name.split("/").includes("..")) continue;
    for (const base of bases) files.push(path.join(base, name));
  }
  return files;
}

/**
 * How the reader's repository at `folder` has moved on from `recorded`: commits since its HEAD,
 * a changed or deleted branch, and files the handoff names (`recorded.files`, paths in `texts`)
 * that changed since. null when there is no git or repository here, when it is another
 * repository, or when nothing moved on. Remembered until the repository changes (see above).
 */
export async function compareWithRepository(recorded: GitState, folder: string, texts: Iterable<string> = []): Promise<Staleness | null> {
  const dirs = locateRepository(folder);
  if (dirs === null) return null;
  const mentions = mentionsOf(Array.isArray(texts) ? (texts as readonly string[]) : Array.from(texts));
  const named = () => new Set([...(recorded.files ?? []), ...mentions.paths]);
  if (dirs === undefined) return (await computeStaleness(recorded, folder, named())).result;
  const branches = recorded.branch ? [recorded.branch] : [];
  const key = `${folder}\0${JSON.stringify(recorded)}\0${mentions.digest}`;
  const known = remembered.get(key);
  if (
    known &&
    repositoryFingerprint(dirs, branches, known.files) === known.fingerprint &&
    stampsOf(known.found) === known.foundStamps &&
    (known.arrival === null || commitArrivalStamp(dirs, recorded.head!) === known.arrival)
  ) {
    return known.result;
  }
  const names = named();
  const files = watchedFiles(dirs, names);
  // Taken before git runs: a change while it runs makes the next read compare again.
  const startedAt = Date.now();
  const fingerprint = repositoryFingerprint(dirs, branches, files);
  const arrival = recorded.head ? commitArrivalStamp(dirs, recorded.head) : null;
  const { result, complete, changed } = await computeStaleness(recorded, folder, names);
  // A listed file the watch misses (named by its bare name, or by a path from another folder) is
  // watched too, so an edit undone shows; stamped after git ran, so one written meanwhile is not remembered.
  const watched = new Set(files);
  const found = changed.filter((file) => !watched.has(file));
  if (complete && !found.some((file) => writtenSince(file, startedAt))) remembered.set(key, { fingerprint, files, found, foundStamps: stampsOf(found), arrival: result?.headMissing ? arrival : null, result });
  return result;
}

/**
 * The comparison itself, with git; `complete` is false when git could not read the repository
 * (nothing to remember). `changed`: every named file git found changed (absolute paths), listed or not.
 */
async function computeStaleness(recorded: GitState, folder: string, named: Set<string>): Promise<{ result: Staleness | null; complete: boolean; changed: string[] }> {
  const reader = await readGitState(folder);
  if (!reader?.root) return { result: null, complete: false, changed: [] };
  const root = reader.root;
  // Same commit, same branch, clean tree: nothing can have moved on (the common case, one git round).
  if (recorded.head && reader.head === recorded.head && reader.branch === recorded.branch && reader.dirty === false) return { result: null, complete: true, changed: [] };
  if (!(await sameRepository(recorded, reader, root))) return { result: null, complete: true, changed: [] };

  let commitsSince = 0;
  let commits: string[] = [];
  let headMissing = false;
  let changed: string[] = [];
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
    changed = (diff ? diff.split("\n") : []).filter((file) => file && isNamed(file, named));
  }
  const changedFiles = changed.slice(0, MAX_LISTED_FILES);
  const compared = { complete: true, changed: changed.map((file) => path.join(root, file)) };
  const branch: Staleness["branch"] = branchChanged && recorded.branch ? { from: recorded.branch, to: reader.branch, gone: branchHead === null } : null;

  if (commitsSince === 0 && !headMissing && !branch && changedFiles.length === 0) return { result: null, ...compared };
  const found = { commitsSince, commits, headMissing, branch, changedFiles };
  return { result: { ...found, block: renderStaleness(found, recorded) }, ...compared };
}

/**
 * For the dashboard: compared with the recorded repository when that folder exists on this
 * machine (the server's), else only what the writer reported.
 */
export async function reportOnThisMachine(recorded: GitState, texts: Iterable<string>): Promise<GitReport> {
  if (!recorded.root || !existsSync(recorded.root)) return { recorded, staleness: null, compared: false };
  return { recorded, staleness: await compareWithRepository(recorded, recorded.root, texts), compared: true };
}
