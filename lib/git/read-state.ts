import "server-only";
import { execFile } from "node:child_process";
import { isAbsolute } from "node:path";
import { MAX_RECORDED_FILES, type GitState } from "./types";

/**
 * Reads repositories with the `git` program: execFile (no shell), a short timeout, and options
 * that keep a repository's own configuration from running programs (fsmonitor, external diff,
 * textconv). Every function answers null when git is missing, the folder is not a repository
 * or git fails: reading a handoff never fails because of git.
 */
const GIT_TIMEOUT_MS = 3000;
const GIT_MAX_OUTPUT = 1024 * 1024;
const SAFE_CONFIG = ["-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "-c", "core.untrackedCache=false"];

export function runGit(cwd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    try {
      execFile(
        "git",
        [...SAFE_CONFIG, ...args],
        {
          cwd,
          timeout: GIT_TIMEOUT_MS,
          maxBuffer: GIT_MAX_OUTPUT,
          windowsHide: true,
          env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
        },
        (error, stdout) => resolve(error ? null : stdout.replace(/\n$/, "")),
      );
    } catch {
      // A bad cwd can throw synchronously on some platforms instead of calling back.
      resolve(null);
    }
  });
}

/** A remote URL without user name or password (tokens are often put there); scp-style `git@host:path` stays. */
export function withoutCredentials(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    // Not parseable: drop everything up to an "@" in the authority rather than risk keeping a secret.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, "$1");
  }
}

/** The repository state of `folder` (an absolute path), or null without git or a repository. */
export async function readGitState(folder: string): Promise<GitState | null> {
  if (!isAbsolute(folder)) return null;
  // One round of three processes: `status --branch` (porcelain v2) names HEAD's commit and branch too.
  const [root, status, remote] = await Promise.all([
    runGit(folder, ["rev-parse", "--show-toplevel"]),
    runGit(folder, ["status", "--porcelain=v2", "--branch", "--untracked-files=no"]),
    runGit(folder, ["config", "--get", "remote.origin.url"]),
  ]);
  if (!root) return null;
  const lines = status === null ? [] : status.split("\n");
  const header = (key: string) => lines.find((line) => line.startsWith(`# branch.${key} `))?.slice(`# branch.${key} `.length) ?? null;
  const head = header("oid");
  const branch = header("head");
  return {
    root,
    remote: remote ? withoutCredentials(remote) : null,
    branch: branch && branch !== "(detached)" ? branch : null,
    head: head && /^[0-9a-f]{40,64}$/.test(head) ? head : null,
    dirty: status === null ? null : lines.some((line) => line !== "" && !line.startsWith("#")),
  };
}

/** A state carrying only what a document said (an import's branch and files). */
export function reportedState(reported: { branch?: string | null; files?: string[] | null }): GitState | null {
  const files = (reported.files ?? []).filter((file) => file.length > 0 && file.length <= 1024).slice(0, MAX_RECORDED_FILES);
  const branch = reported.branch?.trim().slice(0, 255) || null;
  if (!branch && files.length === 0) return null;
  return { root: null, remote: null, branch, head: null, dirty: null, ...(files.length ? { files } : {}) };
}
