import "server-only";
import fs from "node:fs";
import path from "node:path";
import { LRUCache } from "lru-cache";
import { readSmallFile } from "../small-file";

/**
 * What git itself would look at to notice that a repository moved, read with a few `stat`s and
 * no git process: HEAD (its text and file), the current branch's ref, the index (a `git add`
 * rewrites it), packed-refs, the config (a new remote), FETCH_HEAD (fetched commits), plus refs
 * and files a caller names. Two equal fingerprints mean nothing git compares has changed.
 */

/** Variables that make git look elsewhere than the folder's `.git`: then only git can say. */
const DISCOVERY_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"];

export type RepositoryDirs = {
  /** The folder asked about as git sees it: symbolic links resolved. */
  folder: string;
  /** The folder holding the `.git` entry: the work tree's top. */
  top: string;
  /** HEAD and the index (a worktree's own folder under .git/worktrees for a linked worktree). */
  gitDir: string;
  /** Refs, packed-refs and config, shared by every worktree. */
  commonDir: string;
};

function isDirectory(folder: string): boolean {
  return fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** The most of a `.git` file, `commondir` or HEAD read: each holds one line. */
const MAX_POINTER_BYTES = 4096;

/**
 * One of git's one-line files (a `.git` file, `commondir`, HEAD), read only when it is a plain
 * file of at most MAX_POINTER_BYTES (readSmallFile); throws otherwise, and callers then leave it
 * to git. Anyone who can write a folder above the work (a shared /tmp) can put a FIFO or a link to
 * /dev/zero there as `.git`: read as it was, a FIFO held every hook until Claude Code's timeout,
 * where git itself says at once that there is no repository.
 */
function readPointerFile(file: string): string {
  const text = readSmallFile(file, MAX_POINTER_BYTES, { followLinks: true });
  if (text === null) throw new Error(`${file} is gone`);
  return text;
}

/** A `.git` file (linked worktree, submodule) says `gitdir: <path>`, relative to its own folder. */
function gitDirOf(dotGit: string): string | null {
  const stat = fs.statSync(dotGit, { throwIfNoEntry: false });
  if (!stat) return null;
  if (stat.isDirectory()) return dotGit;
  const line = /^gitdir: (.+)$/m.exec(readPointerFile(dotGit))?.[1]?.trim();
  return line ? path.resolve(path.dirname(dotGit), line) : null;
}

/**
 * The common folder a linked worktree's `commondir` names, else the git folder itself. Asked
 * first rather than read and caught: most repositories have none, and a thrown read costs every
 * staleness check about 10 µs (a file gone in between throws, and locateRepository says only git can tell).
 */
function commonDirOf(gitDir: string): string {
  const file = path.join(gitDir, "commondir");
  return fs.existsSync(file) ? path.resolve(gitDir, readPointerFile(file).trim()) : gitDir;
}

/** Errors of a path that names no folder: git would find no repository for it either. */
const NO_FOLDER = new Set(["ENOENT", "ENOTDIR"]);

/**
 * The repository git would find for `folder`, found as git finds it (the nearest `.git` up the
 * tree from the folder's real path: a symbolic link to a package folder of a repository is in
 * that repository, whatever lies above the link), without running git. null: no repository (or
 * no such folder), so git would find none either. undefined: the environment redirects git's
 * discovery, or the folder or `.git` could not be read: only git can tell.
 */
export function locateRepository(folder: string): RepositoryDirs | null | undefined {
  if (DISCOVERY_VARIABLES.some((name) => process.env[name])) return undefined;
  if (!path.isAbsolute(folder)) return null;
  let real: string;
  try {
    real = fs.realpathSync.native(folder);
  } catch (error) {
    return NO_FOLDER.has((error as NodeJS.ErrnoException).code ?? "") ? null : undefined;
  }
  if (!isDirectory(real)) return null;
  try {
    for (let top = real; ; top = path.dirname(top)) {
      const gitDir = gitDirOf(path.join(top, ".git"));
      if (gitDir) return { folder: real, top, gitDir, commonDir: commonDirOf(gitDir) };
      if (path.dirname(top) === top) return null;
    }
  } catch {
    return undefined;
  }
}

/** A file's identity and change times, or "-" when it is not there. */
export function fileStamp(file: string): string {
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  return stat ? `${stat.ino}.${stat.size}.${stat.mtimeNs}.${stat.ctimeNs}` : "-";
}

/** A ref name that stays inside refs/ (git refuses `..` in ref names anyway). */
const safeRef = (ref: string) => ref.startsWith("refs/") && !ref.split("/").includes("..") && !ref.includes("\0");

/** How many git folders' HEAD texts are kept (a process compares with few repositories). */
const MAX_HEAD_TEXTS = 64;
const headTexts = new LRUCache<string, { stamp: string; text: string }>({ max: MAX_HEAD_TEXTS });

/**
 * HEAD's text, read again only when its stamp moved: git replaces HEAD by renaming a new file in,
 * which gives it a new inode and times. The stamp is taken for the fingerprint anyway, and the
 * read was five system calls of the dozen a fingerprint costs.
 */
function headTextOf(file: string, stamp: string): string {
  const known = headTexts.get(file);
  if (known && known.stamp === stamp && stamp !== "-") return known.text;
  let text: string;
  try {
    text = readPointerFile(file).trim();
  } catch {
    text = "-";
  }
  headTexts.set(file, { stamp, text });
  return text;
}

/** A commit id as git names it (SHA-1 or SHA-256), whose first two digits name its loose object's folder. */
const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * Where `commit` would arrive in the object store: the folders a fetch adds its loose object or
 * its pack to. A fetch from another worktree of the repository writes that worktree's FETCH_HEAD,
 * not this one's, so only these show that a missing commit came.
 */
export function commitArrivalStamp(dirs: RepositoryDirs, commit: string): string {
  const pack = fileStamp(path.join(dirs.commonDir, "objects", "pack"));
  return COMMIT_ID.test(commit) ? `${pack}|${fileStamp(path.join(dirs.commonDir, "objects", commit.slice(0, 2)))}` : pack;
}

/**
 * The repository's fingerprint now: HEAD, the branch it points at, the index, packed-refs,
 * config and FETCH_HEAD, the branches named in `branches` (e.g. the one a handoff was written
 * on, to see it deleted) and the work-tree `files` (absolute paths; an edit not yet added
 * touches no git file).
 */
export function repositoryFingerprint(dirs: RepositoryDirs, branches: string[] = [], files: string[] = []): string {
  const headFile = path.join(dirs.gitDir, "HEAD");
  const headStamp = fileStamp(headFile);
  const head = headTextOf(headFile, headStamp);
  const current = /^ref: (.+)$/.exec(head)?.[1];
  // The current branch first; a named branch that is the current one is stamped once.
  const refs = new Set([...(current ? [current] : []), ...branches.map((branch) => `refs/heads/${branch}`)]);
  const parts = [
    head,
    headStamp,
    fileStamp(path.join(dirs.gitDir, "index")),
    fileStamp(path.join(dirs.gitDir, "FETCH_HEAD")),
    fileStamp(path.join(dirs.commonDir, "packed-refs")),
    fileStamp(path.join(dirs.commonDir, "config")),
    ...[...refs].filter(safeRef).map((ref) => fileStamp(path.join(dirs.commonDir, ref))),
    ...files.map(fileStamp),
  ];
  return parts.join("|");
}
