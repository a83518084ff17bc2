import "server-only";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";
import { normalizeRemote } from "../git/compare";
import { fileStamp, locateRepository, type RepositoryDirs } from "../git/fingerprint";
import { readRepositoryIdentity, type RepositoryIdentity } from "../git/read-state";
import type { GitState } from "../git/types";

/**
 * A repository as pickup sees it: where a session runs, and the name a link is kept under
 * (`key`): the normalized `origin` URL, so every clone of it shares one link, or
 * `root:<top folder>` for a repository without an origin.
 */
export type Repository = { key: string; root: string; remote: string | null };

/**
 * What git said of the folders the hooks ran in, kept in <data folder>/hooks/repositories.json
 * with the stamp of what its answer depends on: the repository git finds there and its config
 * file (a new or changed origin rewrites it). Claude Code runs the Stop hook at the end of every
 * turn and SessionStart at every session; the two git processes cost each hook about 35 ms of
 * its 210 ms on the bench machine. Within the stamp the folder's top and origin cannot have
 * changed, except through a global git config naming an `origin` url, which nobody writes.
 */
type Remembered = RepositoryIdentity & { stamp: string };
const MAX_REMEMBERED = 64;
const memoryFile = () => path.join(dataDir(), "hooks", "repositories.json");

const stampOf = (dirs: RepositoryDirs) => [dirs.top, dirs.gitDir, dirs.commonDir, fileStamp(path.join(dirs.commonDir, "config"))].join("\n");

function remembered(): Record<string, Remembered> {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(memoryFile(), "utf8"));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, Remembered>) : {};
  } catch {
    return {};
  }
}

function remember(memory: Record<string, Remembered>, folder: string, entry: Remembered): void {
  // Insertion order is age: the folder goes last, the oldest beyond MAX_REMEMBERED go.
  delete memory[folder];
  const kept = Object.entries(memory).slice(-(MAX_REMEMBERED - 1));
  const file = memoryFile();
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(Object.fromEntries([...kept, [folder, entry]])), { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch {
    // Only a memory: the next hook asks git again.
  }
}

/**
 * The repository around `folder` (absolute), or null without git or outside any repository.
 * Found without git when no `.git` lies above the folder, or when git's answer for it is
 * remembered under the same stamp.
 */
export async function repositoryAt(folder: string): Promise<Repository | null> {
  const dirs = locateRepository(folder);
  if (dirs === null) return null;
  const stamp = dirs && stampOf(dirs);
  const memory = stamp ? remembered() : {};
  const known = memory[folder];
  let identity: RepositoryIdentity | null =
    stamp && known?.stamp === stamp && typeof known.root === "string" && (typeof known.remote === "string" || known.remote === null) ? { root: known.root, remote: known.remote } : null;
  if (!identity) {
    identity = await readRepositoryIdentity(folder);
    if (identity && stamp) remember(memory, folder, { ...identity, stamp });
  }
  if (!identity) return null;
  return { ...identity, key: identity.remote ? normalizeRemote(identity.remote) : `root:${identity.root}` };
}

/**
 * Whether a handoff belongs to `repository`: its project is the one the repository is linked to,
 * or a git state it recorded (its own, or its latest entry's) names the same `origin`, or, when
 * either has no origin, the same top folder.
 */
export function belongsTo(handoff: { project: string | null; recorded: GitState[] }, repository: Repository, linkedProject: string | null): boolean {
  if (linkedProject !== null && handoff.project === linkedProject) return true;
  return handoff.recorded.some((recorded) => {
    if (recorded.remote && repository.remote) return normalizeRemote(recorded.remote) === normalizeRemote(repository.remote);
    return recorded.root !== null && recorded.root === repository.root;
  });
}
