import { z } from "zod";
import { Invalid } from "../errors";
import type { ToolContext } from "./tool-kit";

/** `repo_path`: the caller's repository folder, for a server that does not run beside it. */
export const repoPathArg = z
  .string()
  .optional()
  .describe(
    "Absolute path of your working folder (a git repository) on the machine Baton runs on. Baton records where the " +
      "repository stands (branch, commit) and, when reading, says what changed since. Omit it over stdio: the " +
      "server's working folder is used. Ignored when the folder does not exist there.",
  );

/** Where to read git for a call: its `repo_path`, else the folder of a server running beside its client. */
export function repoPathOf(repoPath: string | undefined, context: ToolContext): string | undefined {
  if (repoPath && !context.repoPathAllowed) {
    throw new Invalid("repo_path is read only for callers on Baton's own machine (stdio, or HTTP from loopback); leave it out", {
      repo_path: ["is read only for callers on Baton's own machine"],
    });
  }
  return repoPath || context.workingFolder;
}
