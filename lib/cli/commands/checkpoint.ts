import "server-only";
import path from "node:path";
import { z } from "zod";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { parseCommandArgs } from "../args";
import { checkpointProject, errorLines, type CheckpointFields } from "../../formats";
import { redactionLines } from "../../secrets";
import { MAX_HOOK_INPUT_BYTES, readBounded } from "../read-bounded";

const USAGE = `usage: baton checkpoint [--goal TEXT] [--now TEXT] [--status in_progress|completed|blocked]
                        [--hypothesis TEXT] [--outcome TEXT] [--file PATH]... [--files A,B]
                        [--branch NAME] [--session-id ID] [--push [--new] [--project TAG]] [--hook]

Saves or updates .flow-guardian/handoff.yaml in the project around the current folder (nearest
.flow-guardian/, .git/, pyproject.toml or package.json). The first checkpoint needs --goal and
--now; later ones merge what you give and always refresh the timestamp. Branch and files default
from git. --push mirrors the checkpoint into Baton (a new handoff the first time, then a progress
entry on the same one; once that handoff is completed it refuses, and --new starts another). --hook reads a Claude Code hook's JSON from standard input (session_id, cwd),
e.g. from a PreCompact hook.`;

const hookInputSchema = z.looseObject({ session_id: z.string().optional(), cwd: z.string().optional() });

async function readHookInput(): Promise<z.output<typeof hookInputSchema>> {
  const { text, over } = await readBounded(process.stdin, MAX_HOOK_INPUT_BYTES);
  if (over) throw new Error(`the hook input on standard input is over ${MAX_HOOK_INPUT_BYTES / 1024} KiB; a Claude Code hook's JSON object is far smaller`);
  if (text.trim() === "") return {};
  const parsed = hookInputSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error("the hook input on standard input is not a Claude Code hook's JSON object");
  return parsed.data;
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("checkpoint", USAGE, args, {
    options: {
      goal: { type: "string" },
      now: { type: "string" },
      status: { type: "string" },
      hypothesis: { type: "string" },
      outcome: { type: "string" },
      file: { type: "string", multiple: true },
      files: { type: "string" },
      branch: { type: "string" },
      "session-id": { type: "string" },
      push: { type: "boolean" },
      new: { type: "boolean" },
      project: { type: "string" },
      hook: { type: "boolean" },
    },
  });
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  let hook: z.output<typeof hookInputSchema> = {};
  if (values.hook) {
    try {
      hook = await readHookInput();
    } catch (error) {
      process.stderr.write(`baton checkpoint: ${(error as Error).message}\n`);
      return 1;
    }
  }
  const listed = values.files?.split(",").map((file) => file.trim()).filter(Boolean);
  const files = values.file || listed ? [...(values.file ?? []), ...(listed ?? [])] : undefined;
  const fields: CheckpointFields = {
    goal: values.goal,
    now: values.now,
    status: values.status,
    hypothesis: values.hypothesis,
    outcome: values.outcome,
    files,
    branch: values.branch,
    sessionId: values["session-id"] ?? hook.session_id,
  };
  const cwd = hook.cwd ?? process.cwd();
  try {
    if (values.push) await ensureMigrated();
    const result = await checkpointProject({ cwd, fields, push: values.push ?? false, pushToNew: values.new ?? false, project: values.project });
    const shown = path.relative(process.cwd(), result.file) || result.file;
    process.stdout.write(`${result.mode} ${shown} (${result.doc.status}, ${result.doc.timestamp})\n`);
    if (result.pushed) {
      const { handoff, created, entry } = result.pushed;
      process.stdout.write(created ? `pushed to new handoff ${handoff.id}\n` : `pushed to handoff ${handoff.id} as entry #${entry?.number}\n`);
      for (const line of redactionLines(result.pushed.redactions)) process.stderr.write(`${line}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write("baton checkpoint: failed:\n");
    for (const line of errorLines(error)) process.stderr.write(`  ${line}\n`);
    return 1;
  } finally {
    await closeDatabase();
  }
}
