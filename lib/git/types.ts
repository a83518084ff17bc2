/**
 * Where a writer's repository stood (stored as JSON in the `git` columns) and what a reader's
 * repository says about it since. Client-safe: the dashboard's badge renders these types.
 */
import { z } from "zod";
import { oneLine } from "../one-line";

/** A folder on Baton's machine, as a reader's or writer's repository; absolute, so it never depends on the server's cwd. */
export const repoPathSchema = z
  .string()
  .max(4096)
  .refine((path) => /^(?:\/|[A-Za-z]:[\\/])/.test(path) && !path.includes("\0"), {
    error: "repo_path must be an absolute folder path on the machine Baton runs on",
  });

/** Bounds on what is kept and shown: a handoff's git block stays a few lines. */
export const MAX_LISTED_COMMITS = 5;
export const MAX_LISTED_FILES = 10;
export const MAX_RECORDED_FILES = 200;

export const gitStateSchema = z.object({
  /** The repository's top folder on the writer's machine. */
  root: z.string().max(4096).nullable(),
  /** `origin`'s URL, credentials removed. */
  remote: z.string().max(2048).nullable(),
  /** null on a detached HEAD. */
  branch: z.string().max(255).nullable(),
  /** Full commit ID of HEAD; null in a repository without commits (or an import that did not say). */
  head: z.string().regex(/^[0-9a-f]{40,64}$/).nullable(),
  /** Uncommitted changes to tracked files; null when not known (imports). */
  dirty: z.boolean().nullable(),
  /** Files the writer named (an import's `files`), repository-relative. */
  files: z.array(z.string().max(1024)).max(MAX_RECORDED_FILES).optional(),
});

export type GitState = z.output<typeof gitStateSchema>;

/** A stored `git` column: the state, or null when it is empty or not one (never throws). */
export function parseGitState(json: string | null | undefined): GitState | null {
  if (!json) return null;
  try {
    const parsed = gitStateSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export type Staleness = {
  /** Commits on the reader's HEAD since the recorded one. */
  commitsSince: number;
  /** Their `<short id> <first line>`, newest first, at most MAX_LISTED_COMMITS. */
  commits: string[];
  /** The recorded HEAD is not in the reader's repository (not pushed, or not fetched). */
  headMissing: boolean;
  /** The branch the writer was on, where the reader is now (null: detached), and whether it still exists. */
  branch: { from: string; to: string | null; gone: boolean } | null;
  /** Files the handoff names that changed since the recorded HEAD (committed or not), at most MAX_LISTED_FILES. */
  changedFiles: string[];
  /** One short block for a model or a person, read before the entries. */
  block: string;
};

/** What the dashboard shows: the comparison when the repository is on this machine, else what the writer reported. */
export type GitReport = { recorded: GitState; staleness: Staleness | null; compared: boolean };

function short(commit: string): string {
  return commit.slice(0, 7);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** How a staleness block ends: it is read above the thread's entries (by a model, or on the thread page). */
const BEFORE_THE_ENTRIES = " Check the code before acting on the entries below.";

/** A staleness block where no entries follow it (the desk's list of handoffs behind their repository). */
export const awayFromTheEntries = (block: string) =>
  block.endsWith(BEFORE_THE_ENTRIES) ? `${block.slice(0, -BEFORE_THE_ENTRIES.length)} Check the code before acting on the thread's entries.` : block;

/**
 * "Stale: 3 commits since this handoff was written (…); branch fix/x → main; changed since: src/auth.ts".
 * Commit subjects, branch and file names come from the repository: each stays on this one line.
 */
export function renderStaleness(found: Omit<Staleness, "block">, recorded: GitState): string {
  const parts: string[] = [];
  if (found.headMissing && recorded.head) {
    parts.push(`the commit this handoff was written at (${short(recorded.head)}) is not in this repository (not pushed or not fetched?)`);
  } else if (found.commitsSince > 0) {
    const more = found.commitsSince > found.commits.length ? `; … ${found.commitsSince - found.commits.length} more` : "";
    const on = found.branch ? found.branch.to : recorded.branch;
    parts.push(`${plural(found.commitsSince, "commit")}${on ? ` on ${oneLine(on)}` : ""} since this handoff was written (${found.commits.map(oneLine).join("; ")}${more})`);
  }
  if (found.branch) {
    const to = found.branch.to === null ? "a detached HEAD" : oneLine(found.branch.to);
    const from = oneLine(found.branch.from);
    parts.push(`branch ${from} → ${to}${found.branch.gone ? ` (${from} no longer exists)` : ""}`);
  }
  if (found.changedFiles.length > 0) parts.push(`changed since: ${found.changedFiles.map(oneLine).join(", ")}`);
  return `Stale: ${parts.join("; ")}.${BEFORE_THE_ENTRIES}`;
}

/**
 * The staleness in Baton's words alone (counts, no text from the repository), for a note that
 * quotes the repository's text apart (stalenessDetails) inside its fences.
 */
export function summarizeStaleness(found: Omit<Staleness, "block">): string {
  const parts: string[] = [];
  if (found.headMissing) parts.push("the commit this handoff was written at is not in this repository (not pushed or not fetched?)");
  else if (found.commitsSince > 0) parts.push(`${plural(found.commitsSince, "commit")} since this handoff was written`);
  if (found.branch) parts.push(found.branch.gone ? "its branch no longer exists" : "the branch changed");
  if (found.changedFiles.length > 0) parts.push(`${plural(found.changedFiles.length, "file")} it names changed`);
  return `Stale: ${parts.join("; ")} (details quoted below).${BEFORE_THE_ENTRIES}`;
}

/** The repository's own text behind a staleness, field by field: commit subjects, branch names, file names. */
export function stalenessDetails(found: Omit<Staleness, "block">): [name: string, value: string][] {
  return [
    ...found.commits.map((commit): [string, string] => ["commit", commit]),
    ...(found.branch ? [["branch", `${found.branch.from} → ${found.branch.to ?? "a detached HEAD"}`] as [string, string]] : []),
    ...found.changedFiles.map((file): [string, string] => ["changed file", file]),
  ];
}

/** What the writer reported, for a reader without the repository: "Written on fix/x at abc1234 (uncommitted changes)". */
export function describeRecorded(state: GitState): string {
  const where = [state.branch ? `on ${oneLine(state.branch)}` : null, state.head ? `at ${short(state.head)}` : null].filter(Boolean).join(" ");
  const dirty = state.dirty ? " with uncommitted changes" : "";
  const remote = state.remote ? ` (${oneLine(state.remote)})` : "";
  return `Written ${where || "in a git repository"}${dirty}${remote}.`;
}
