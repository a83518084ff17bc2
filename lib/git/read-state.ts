import "server-only";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path, { isAbsolute } from "node:path";
import { withoutCredentials } from "../url-credentials";
import { MAX_RECORDED_FILES, type GitState } from "./types";

/**
 * Reads repositories with the `git` program: execFile (no shell), a short timeout, and options
 * that keep a repository's own configuration from running programs (fsmonitor, external diff,
 * textconv, filter drivers). Every function answers null when git is missing, the folder is not a
 * repository or git fails: reading a handoff never fails because of git.
 */
const GIT_TIMEOUT_MS = 3000;
const GIT_MAX_OUTPUT = 1024 * 1024;
const SAFE_CONFIG = ["-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "-c", "core.untrackedCache=false"];

const gitOptions = (cwd: string, overrides: Record<string, string> = {}) => ({
  cwd,
  timeout: GIT_TIMEOUT_MS,
  maxBuffer: GIT_MAX_OUTPUT,
  windowsHide: true,
  env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", ...overrides },
});

/**
 * Commands that read the working tree's files. For a file whose index entry is racily clean (or
 * stat-dirty) git hashes it through its filter driver's clean or process command, named in the
 * repository's own config: `git status` in a folder whose .git/config sets filter.x.clean (and
 * whose .gitattributes or .git/info/attributes says `* filter=x`) ran that program. Inside a
 * submodule its own config names the drivers, so these commands do not look into submodules'
 * files (--ignore-submodules=dirty; a submodule at another commit still counts).
 */
const READS_WORKTREE = new Set(["status", "diff"]);
const NOT_INTO_SUBMODULES = "--ignore-submodules=dirty";
const FILTER_NAMES = ["config", "-z", "--name-only", "--get-regexp", String.raw`^filter\.`];

/**
 * Environment giving every filter driver the config names (filter.<driver>.clean, .smudge,
 * .process) an empty command, which git takes as no filter. GIT_CONFIG_KEY_n, not `-c`: a
 * driver's name may hold an `=`; numbered after any the caller's environment sets already.
 */
function withoutFilters(names: string | null): Record<string, string> {
  const drivers = new Set<string>();
  for (const name of (names ?? "").split("\0")) {
    const lastDot = name.lastIndexOf(".");
    if (name.startsWith("filter.") && lastDot > "filter.".length) drivers.add(name.slice("filter.".length, lastDot));
  }
  if (drivers.size === 0) return {};
  const first = Number(process.env.GIT_CONFIG_COUNT) || 0;
  const keys = [...drivers].flatMap((driver) => ["clean", "smudge", "process"].map((key) => `filter.${driver}.${key}`));
  const overrides: Record<string, string> = { GIT_CONFIG_COUNT: String(first + keys.length) };
  keys.forEach((key, n) => {
    overrides[`GIT_CONFIG_KEY_${first + n}`] = key;
    overrides[`GIT_CONFIG_VALUE_${first + n}`] = "";
  });
  return overrides;
}

function execGit(cwd: string, args: string[], overrides: Record<string, string>): Promise<string | null> {
  return new Promise((resolve) => {
    try {
      execFile("git", [...SAFE_CONFIG, ...args], gitOptions(cwd, overrides), (error, stdout) => resolve(error ? null : stdout.replace(/\n$/, "")));
    } catch {
      // A bad cwd can throw synchronously on some platforms instead of calling back.
      resolve(null);
    }
  });
}

function execGitSync(cwd: string, args: string[], overrides: Record<string, string>): string | null {
  try {
    return execFileSync("git", [...SAFE_CONFIG, ...args], { ...gitOptions(cwd, overrides), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).replace(/\n$/, "");
  } catch {
    return null;
  }
}

export async function runGit(cwd: string, args: string[]): Promise<string | null> {
  if (!READS_WORKTREE.has(args[0])) return execGit(cwd, args, {});
  return execGit(cwd, [args[0], NOT_INTO_SUBMODULES, ...args.slice(1)], withoutFilters(await execGit(cwd, FILTER_NAMES, {})));
}

/** runGit for a command that waits anyway (`baton checkpoint`): the same options, synchronously. */
export function runGitSync(cwd: string, args: string[]): string | null {
  if (!READS_WORKTREE.has(args[0])) return execGitSync(cwd, args, {});
  return execGitSync(cwd, [args[0], NOT_INTO_SUBMODULES, ...args.slice(1)], withoutFilters(execGitSync(cwd, FILTER_NAMES, {})));
}

/**
 * What the writes of this process last read of each folder, with the time of the repository's
 * `.git` folder then. Appends from one agent come many a second, and three git
 * processes each time would cost ten times the append; so a write records the remembered state
 * and, when that is older than RECENT_MS, starts reading it again in the background for the
 * writes after it (a write never waits for git then: with 32 writers on two cores it did, and
 * those waits were their slowest appends). A commit (even one that changes no file), checkout,
 * `git add` or a new remote locks the index, HEAD or the config with a `.lock` file inside `.git`,
 * then renames or removes it, which moves the folder's own time: the next write sees that (one
 * stat) and waits for a fresh read. An edit not yet added shows as dirty within about RECENT_MS.
 */
const RECENT_MS = 2_000;
const MAX_REMEMBERED = 64;
type Remembered = { at: number; key: string; state: GitState | null; refreshing: Promise<GitState | null> | null };
const recent = new Map<string, Remembered>();

function repositoryKey(root: string | null | undefined): string {
  if (!root) return "";
  try {
    return String(fs.statSync(path.join(root, ".git")).mtimeMs);
  } catch {
    return "";
  }
}

/**
 * Reads `folder` and remembers what it read; one read at a time per folder. When only time has
 * passed (same HEAD, index and config), the root and remote stay and one `git status` says the rest.
 */
function refresh(folder: string, remembered: Remembered | undefined, timeOnly = false): Promise<GitState | null> {
  if (remembered?.refreshing) return remembered.refreshing;
  const root = timeOnly ? remembered?.state?.root : null;
  const remote = remembered?.state?.remote ?? null;
  const read = root ? runGit(folder, STATUS).then((status) => stateOf(root, remote, status)) : readGitState(folder);
  const reading = read.then((state) => {
    if (recent.size >= MAX_REMEMBERED && !recent.has(folder)) recent.clear();
    recent.set(folder, { at: Date.now(), key: repositoryKey(state?.root), state, refreshing: null });
    return state;
  });
  if (remembered) remembered.refreshing = reading;
  return reading;
}

/**
 * The state to record with a write (see RECENT_MS above). Reading a handoff compares with
 * readGitState, always current.
 */
export async function gitStateForWrite(folder: string): Promise<GitState | null> {
  if (!isAbsolute(folder)) return null;
  const remembered = recent.get(folder);
  if (!remembered || repositoryKey(remembered.state?.root) !== remembered.key) return refresh(folder, remembered);
  if (Date.now() - remembered.at >= RECENT_MS) void refresh(folder, remembered, true);
  return remembered.state;
}

/** `status --branch` (porcelain v2) names HEAD's commit and branch too. */
const STATUS = ["status", "--porcelain=v2", "--branch", "--untracked-files=no"];

function stateOf(root: string, remote: string | null, status: string | null): GitState {
  const lines = status === null ? [] : status.split("\n");
  const header = (key: string) => lines.find((line) => line.startsWith(`# branch.${key} `))?.slice(`# branch.${key} `.length) ?? null;
  const head = header("oid");
  const branch = header("head");
  return {
    root,
    remote,
    branch: branch && branch !== "(detached)" ? branch : null,
    head: head && /^[0-9a-f]{40,64}$/.test(head) ? head : null,
    dirty: status === null ? null : lines.some((line) => line !== "" && !line.startsWith("#")),
  };
}

/** The repository state of `folder` (an absolute path), or null without git or a repository. */
export async function readGitState(folder: string): Promise<GitState | null> {
  // One round of three processes.
  const [root, status, remote] = await Promise.all([
    runGit(folder, ["rev-parse", "--show-toplevel"]),
    runGit(folder, STATUS),
    runGit(folder, ["config", "--get", "remote.origin.url"]),
  ]);
  return root ? stateOf(root, remote ? withoutCredentials(remote) : null, status) : null;
}

/** Which repository a folder is in: its top folder and `origin` (credentials removed). */
export type RepositoryIdentity = { root: string; remote: string | null };

/** The repository of `folder` (an absolute path) without its status: two processes, one round. null without git or a repository. */
export async function readRepositoryIdentity(folder: string): Promise<RepositoryIdentity | null> {
  if (!isAbsolute(folder)) return null;
  const [root, remote] = await Promise.all([runGit(folder, ["rev-parse", "--show-toplevel"]), runGit(folder, ["config", "--get", "remote.origin.url"])]);
  return root ? { root, remote: remote ? withoutCredentials(remote) : null } : null;
}

/** A state carrying only what a document said (an import's branch and files). */
export function reportedState(reported: { branch?: string | null; files?: string[] | null }): GitState | null {
  const files = (reported.files ?? []).filter((file) => file.length > 0 && file.length <= 1024).slice(0, MAX_RECORDED_FILES);
  const branch = reported.branch?.trim().slice(0, 255) || null;
  if (!branch && files.length === 0) return null;
  return { root: null, remote: null, branch, head: null, dirty: null, ...(files.length ? { files } : {}) };
}
