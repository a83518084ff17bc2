import "server-only";
import { z } from "zod";
import { Invalid, NotFound } from "../errors";
import { namedFolderSchema } from "../caller";
import { projectTagSchema } from "../handoffs/schemas";
import { read, storedDate, write, type Tx } from "../database";
import { parseInput } from "../validation";
import { repositoryAt, type Repository } from "./repository";

/**
 * `baton link`: a repository tied to a project tag, so sessions starting in it pick up that
 * project's handoffs, also those that recorded no git state (written on claude.ai, say). Owns the
 * `repository_links` table. A link is kept under the repository's normalized origin (every clone
 * shares it) or, without an origin, its top folder.
 */
export type RepositoryLink = { repository: string; project: string; createdAt: string; updatedAt: string };

type LinkRow = { repository: string; project: string; created_at: string; updated_at: string };
const LINK_COLUMNS = "repository, project, created_at, updated_at";
const viewOf = (row: LinkRow): RepositoryLink => ({
  repository: row.repository,
  project: row.project,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

const folderInput = z.object({ folder: namedFolderSchema });
const linkInput = folderInput.extend({
  project: z.string({ error: "project is required: the project tag whose handoffs this repository picks up" }).pipe(projectTagSchema),
});

async function repositoryOf(folder: string): Promise<Repository> {
  const repository = await repositoryAt(folder);
  if (!repository) throw new Invalid(`${folder} is not inside a git repository (or git is not installed): a link ties a repository to a project`, { folder: ["not inside a git repository"] });
  return repository;
}

/** The project `repository` is linked to, in the caller's transaction; null when none. */
export async function linkedProjectIn(tx: Tx, repository: Pick<Repository, "key">): Promise<string | null> {
  const row = await tx.get<{ project: string }>("SELECT project FROM repository_links WHERE repository = ?", [repository.key]);
  return row?.project ?? null;
}

/** Links the repository around `folder` to `project` (replacing its previous link). */
export async function linkRepository(options: { folder: string; project: string }): Promise<{ repository: Repository; link: RepositoryLink; previous: string | null }> {
  const input = parseInput(linkInput, options);
  const repository = await repositoryOf(input.folder);
  return write(async (tx) => {
    const previous = await linkedProjectIn(tx, repository);
    const now = storedDate();
    // An upsert with RETURNING always answers its row.
    const row = await tx.get<LinkRow>(
      `INSERT INTO repository_links (repository, project, created_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (repository) DO UPDATE SET project = excluded.project, updated_at = excluded.updated_at RETURNING ${LINK_COLUMNS}`,
      [repository.key, input.project, now, now],
    );
    return { repository, link: viewOf(row!), previous };
  });
}

/** Removes the link of the repository around `folder`; NotFound when it has none. */
export async function unlinkRepository(options: { folder: string }): Promise<{ repository: Repository; link: RepositoryLink }> {
  const input = parseInput(folderInput, options);
  const repository = await repositoryOf(input.folder);
  return write(async (tx) => {
    const row = await tx.get<LinkRow>(`DELETE FROM repository_links WHERE repository = ? RETURNING ${LINK_COLUMNS}`, [repository.key]);
    if (!row) throw new NotFound(`${repository.root} is not linked to a project; nothing to unlink`);
    return { repository, link: viewOf(row) };
  });
}

/** The repository around `folder` and its link (null when none). */
export async function repositoryLinkOf(options: { folder: string }): Promise<{ repository: Repository; link: RepositoryLink | null }> {
  const input = parseInput(folderInput, options);
  const repository = await repositoryOf(input.folder);
  const row = await read((tx) => tx.get<LinkRow>(`SELECT ${LINK_COLUMNS} FROM repository_links WHERE repository = ?`, [repository.key]));
  return { repository, link: row ? viewOf(row) : null };
}

/** Every link, by repository. */
export async function listRepositoryLinks(): Promise<RepositoryLink[]> {
  return (await read((tx) => tx.all<LinkRow>(`SELECT ${LINK_COLUMNS} FROM repository_links ORDER BY repository`))).map(viewOf);
}
