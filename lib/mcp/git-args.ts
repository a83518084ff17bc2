import { z } from "zod";
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

/**
 * Where to read git for a call: its `repo_path`, else the folder of a server running beside its
 * client. Who may name a folder is the domain's rule (lib/caller.ts), for every door.
 */
export function repoPathOf(repoPath: string | undefined, context: ToolContext): string | undefined {
  return repoPath || context.workingFolder;
}
