import "server-only";
import { isDomainError, Unavailable } from "../../errors";
import path from "node:path";
import { z } from "zod";
import { databaseUrl } from "../../config";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { domainErrorText } from "../failure";
import { parseCommandArgs } from "../args";
import { checkpointProject, type CheckpointFields } from "../../formats";
import { redactionLines } from "../../secrets";
import { boundBusyWaitForHook, busySkipNote } from "../../hooks/busy-wait-bound";
import { byDeadline, exitSoonAfterGivingUp, gaveUpOnDatabase, HOOK_DEADLINE_MS, hookDeadline, TIMED_OUT } from "../../hooks/deadline";
import { hookDatabaseProblem } from "../../hooks/older-database";
import { oneLine } from "../../one-line";
import { visibleControls } from "../../validation";
import { MAX_HOOK_INPUT_BYTES, readHookInput } from "../read-bounded";

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

/** The hook's JSON from standard input, by `deadline` (else TIMED_OUT); a string says why there is none to use. */
async function readHookJson(deadline: number): Promise<z.output<typeof hookInputSchema> | string | typeof TIMED_OUT> {
  const { text, over, timedOut } = await readHookInput(process.stdin, deadline);
  if (over) return `the hook input on standard input is over ${MAX_HOOK_INPUT_BYTES / 1024} KiB; a Claude Code hook's JSON object is far smaller`;
  if (timedOut) return TIMED_OUT;
  if (text.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // The parser quotes the input back: its control characters are shown, not sent to the terminal.
    return `the hook input on standard input is not valid JSON (${visibleControls((error as Error).message)})`;
  }
  const parsed = hookInputSchema.safeParse(json);
  return parsed.success ? parsed.data : "the hook input on standard input is not a Claude Code hook's JSON object";
}

/**
 * As a hook, the database is used as it is: a hook never creates one nor migrates one
 * (lib/hooks/older-database.ts; a PreCompact hook that migrated, with another process writing,
 * waited 30 s). Thrown after the file is saved, so it is said as the push's refusal.
 */
async function refuseUnlessUsableByHook(): Promise<void> {
  const problem = await hookDatabaseProblem(databaseUrl());
  if (!problem) return;
  throw new Unavailable(
    "missing" in problem
      ? `no Baton database at ${problem.missing} yet (a hook creates none); \`baton checkpoint --push\` by hand, the MCP server or the dashboard creates it`
      : problem.older,
  );
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
  // As a hook (PreCompact) it keeps to the other hooks' deadline, reading and database together,
  // SQLite's lock waits (which no timer cuts short) bounded within it.
  if (values.hook) boundBusyWaitForHook();
  const deadline = values.hook ? hookDeadline() : Infinity;
  let hook: z.output<typeof hookInputSchema> = {};
  if (values.hook) {
    const read = await readHookJson(deadline);
    // Given up on, as the other hooks do: exit 0 (a refusal of what was sent is exit 1).
    if (read === TIMED_OUT) {
      process.stderr.write(`baton checkpoint: standard input held no whole JSON object and did not end within ${HOOK_DEADLINE_MS / 1000} s; gave up so the session is not held\n`);
      return 0;
    }
    if (typeof read === "string") {
      process.stderr.write(`baton checkpoint: ${read}\n`);
      return 1;
    }
    hook = read;
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
  const checkpoint = async () => {
    // By hand the database is made ready (created, migrated) too, but only once the file is saved:
    // a busy database refuses the push, never the checkpoint itself.
    const beforePush = values.hook ? refuseUnlessUsableByHook : () => ensureMigrated();
    return checkpointProject({ cwd, fields, push: values.push ?? false, pushToNew: values.new ?? false, project: values.project, beforePush, updateOnly: values.hook && !(values.goal && values.now) });
  };
  try {
    const result = deadline === Infinity ? await checkpoint() : await byDeadline(checkpoint(), deadline);
    if (result === TIMED_OUT) {
      process.stderr.write(`baton checkpoint: ${gaveUpOnDatabase()}; the checkpoint was not pushed: run \`baton checkpoint --push\` once it answers\n`);
      exitSoonAfterGivingUp();
      return 0;
    }
    if (result === null) {
      // A hook without --goal and --now only updates (the README's "run one checkpoint by hand first"): none to update is no failure.
      process.stderr.write("baton checkpoint: this project has no .flow-guardian/handoff.yaml yet, so the hook has nothing to update; run `baton checkpoint --goal … --now …` once to start one\n");
      return 0;
    }
    const shown = path.relative(process.cwd(), result.file) || result.file;
    process.stdout.write(`${result.mode} ${oneLine(shown)} (${result.doc.status}, ${result.doc.timestamp})\n`);
    if (result.pushed) {
      const { handoff, created, entry } = result.pushed;
      process.stdout.write(created ? `pushed to new handoff ${handoff.id}\n` : `pushed to handoff ${handoff.id} as entry #${entry?.number}\n`);
      for (const line of redactionLines(result.pushed.redactions)) process.stderr.write(`${line}\n`);
    }
    return 0;
  } catch (error) {
    // Anything else is the CLI's to say in one line (lib/cli/failure.ts).
    if (!isDomainError(error)) throw error;
    // A hook that could not push gives up in one line and exits 0 (the file is saved): nobody
    // sends a hook again, and a busy database is no misconfiguration.
    if (values.hook && error instanceof Unavailable) {
      process.stderr.write(`baton checkpoint: ${busySkipNote(error, "the next PreCompact hook pushes the checkpoint") ?? oneLine(error.message)}\n`);
      return 0;
    }
    process.stderr.write(domainErrorText("checkpoint", "failed", error));
    return 1;
  } finally {
    await closeDatabase();
  }
}
