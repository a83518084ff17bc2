import { z } from "zod";
import type { Staleness } from "../git/types";

/** A thread's staleness as MCP answers carry it (snake_case, like every tool result). */
export const mcpStalenessSchema = z
  .object({
    block: z.string().describe("One short paragraph saying what moved on; read it before the entries"),
    commits_since: z.number().int().describe("Commits on your HEAD since the commit the handoff was written at"),
    commits: z.array(z.string()).describe("Their short IDs and first lines, newest first (a few at most)"),
    head_missing: z.boolean().describe("The commit the handoff was written at is not in your repository"),
    branch: z
      .object({ from: z.string(), to: z.string().nullable(), gone: z.boolean() })
      .nullable()
      .describe("The writer's branch and yours (null: detached HEAD), when they differ; gone when the writer's branch no longer exists"),
    changed_files: z.array(z.string()).describe("Files the handoff names that changed since (committed or not)"),
  })
  .nullable()
  .describe("How your repository moved on since the handoff was written; null when it has not, or without git");

export function toMcpStaleness(staleness: Staleness | null): z.output<typeof mcpStalenessSchema> {
  if (!staleness) return null;
  return {
    block: staleness.block,
    commits_since: staleness.commitsSince,
    commits: staleness.commits,
    head_missing: staleness.headMissing,
    branch: staleness.branch,
    changed_files: staleness.changedFiles,
  };
}
