import "server-only";
import { normalizeRemote } from "../git/compare";
import { readRepositoryIdentity } from "../git/read-state";
import type { GitState } from "../git/types";

/**
 * A repository as pickup sees it: where a session runs, and the name a link is kept under
 * (`key`): the normalized `origin` URL, so every clone of it shares one link, or
 * `root:<top folder>` for a repository without an origin.
 */
export type Repository = { key: string; root: string; remote: string | null };

/** The repository around `folder` (absolute), or null without git or outside any repository. */
export async function repositoryAt(folder: string): Promise<Repository | null> {
  const identity = await readRepositoryIdentity(folder);
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
