import "server-only";
import { isDomainError } from "../../errors";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { linkRepository, listRepositoryLinks, repositoryLinkOf, unlinkRepository } from "../../pickup";
import { oneLine } from "../../one-line";
import { visibleControls } from "../../validation";
import { parseCommandArgs, usageError } from "../args";

const USAGE = `usage: baton link [--project NAME | --unlink | --list]

Ties the git repository around the current folder to a project tag: a Claude Code session that
starts in it (baton hook session-start) also picks up that project's handoffs, those with no
recorded repository too (written on claude.ai, say). The link is kept under the repository's
origin URL, so every clone shares it (a repository without origin: its top folder). Origins and
folders are printed with control characters, tabs and line breaks escaped (\\u001b, \\t, \\n).
  baton link                  show this repository's link
  baton link --project NAME   link it to NAME (replaces a previous link)
  baton link --unlink         remove its link
  baton link --list           every link`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("link", USAGE, args, { options: { project: { type: "string" }, unlink: { type: "boolean" }, list: { type: "boolean" } } });
  if (typeof parsed === "number") return parsed;
  const { project, unlink, list } = parsed.values;
  if ([project !== undefined, unlink, list].filter(Boolean).length > 1) return usageError("link", "give one of --project, --unlink, --list", USAGE);
  const folder = process.cwd();
  try {
    await ensureMigrated();
    if (list) {
      const links = await listRepositoryLinks();
      if (links.length === 0) process.stderr.write("no links; add one with `baton link --project NAME` in a repository\n");
      for (const link of links) process.stdout.write(`${oneLine(link.repository)}\t${oneLine(link.project)}\n`);
    } else if (unlink) {
      const { repository, link } = await unlinkRepository({ folder });
      process.stdout.write(`unlinked ${oneLine(repository.key)} from project ${oneLine(link.project)}\n`);
    } else if (project !== undefined) {
      const { repository, link, previous } = await linkRepository({ folder, project });
      const was = previous && previous !== link.project ? ` (was ${oneLine(previous)})` : "";
      process.stdout.write(`linked ${oneLine(repository.key)} to project ${oneLine(link.project)}${was}\n`);
    } else {
      const { repository, link } = await repositoryLinkOf({ folder });
      if (link) process.stdout.write(`${oneLine(repository.key)}\t${oneLine(link.project)}\n`);
      else process.stderr.write(`${oneLine(repository.key)} is not linked to a project; \`baton link --project NAME\` links it\n`);
    }
    return 0;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    process.stderr.write(`baton link: ${visibleControls(error.message)}\n`);
    return 1;
  } finally {
    await closeDatabase();
  }
}
