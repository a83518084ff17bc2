import "server-only";
import path from "node:path";
import { z } from "zod";
import { Invalid, isDomainError, type DomainError } from "../errors";
import { describeFieldErrors } from "../validation";
import { findProjectRoot, gitState, handoffYamlPath, loadHandoffFile, mirrorStatePath, readProjectFile, writeProjectFile } from "./flow-guardian";
import { mergeHandoffYaml, serializeHandoffYaml, validateHandoffYaml, type HandoffYaml } from "./handoff-yaml";
import { MAX_IMPORT_BYTES } from "./schema-helpers";
import { pushCheckpoint, type PushedCheckpoint } from "./push-checkpoint";

export type CheckpointFields = {
  goal?: string;
  status?: string;
  now?: string;
  hypothesis?: string;
  outcome?: string;
  files?: string[];
  branch?: string;
  sessionId?: string;
};

export type CheckpointProjectOptions = {
  /** Where to start looking for the project root. */
  cwd: string;
  fields: CheckpointFields;
  /** Mirror the checkpoint into Baton. */
  push: boolean;
  /** With push: mirror into a new handoff instead of the one earlier pushes went to. */
  pushToNew?: boolean;
  project?: string;
  at?: Date;
  /**
   * With push: run after the file is written and before the push (a hook's check that the
   * database is usable as it is); what it throws is said as the push's refusal, the file saved.
   */
  beforePush?: () => Promise<void>;
  /**
   * Only update an existing handoff.yaml (a PreCompact hook): with none yet, nothing is written
   * or pushed and the answer is null. A hook runs in every repository a session works in, and
   * in one never checkpointed by hand it failed each compaction with `goal: is required`.
   */
  updateOnly?: boolean;
};

export type CheckpointResult = {
  root: string;
  file: string;
  mode: "saved" | "updated";
  doc: HandoffYaml;
  pushed: PushedCheckpoint | null;
};

const mirrorStateSchema = z.object({ handoffId: z.string() });

/** The largest `.flow-guardian/baton.json` read: it holds one handoff ID. */
const MAX_MIRROR_STATE_BYTES = 4 * 1024;

/** The handoff `--push` mirrors into, from baton.json; null when there is none or it says nothing usable. Throws for a link or a non-file there. */
function mirroredHandoffId(root: string): string | null {
  const text = readProjectFile(mirrorStatePath(root), MAX_MIRROR_STATE_BYTES);
  if (text === null) return null;
  try {
    const parsed = mirrorStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.handoffId : null;
  } catch {
    return null;
  }
}

/**
 * flow-guardian's save / update for the project around `cwd`, then optionally `--push`.
 * No handoff.yaml yet: save (goal and now required; status defaults to in_progress; files and
 * branch default from git). One exists: update, merging the given fields, refreshing branch
 * (and files, when git reports uncommitted ones) from git unless given, always refreshing the
 * timestamp. A file that is not valid YAML is never overwritten.
 */
export async function checkpointProject(options: CheckpointProjectOptions): Promise<CheckpointResult | null> {
  const at = options.at ?? new Date();
  const root = findProjectRoot(options.cwd);
  const file = handoffYamlPath(root);
  const loaded = loadHandoffFile(root);
  if (loaded.state === "missing" && options.updateOnly) return null;
  // Read before anything is written: a refused baton.json stops the checkpoint with nothing changed.
  const mirrored = options.push ? mirroredHandoffId(root) : null;
  if (loaded.state === "invalid") {
    const message = `${path.relative(options.cwd, file) || file} cannot be read (${loaded.reason}); fix or delete it, nothing was overwritten`;
    throw new Invalid(message, { "(file)": [message] });
  }
  const git = gitState(root);
  const { fields } = options;
  const given = {
    goal: fields.goal,
    status: fields.status,
    now: fields.now,
    hypothesis: fields.hypothesis,
    outcome: fields.outcome,
    files: fields.files,
    branch: fields.branch ?? git.branch ?? undefined,
    session_id: fields.sessionId,
  };
  let doc: HandoffYaml;
  if (loaded.state === "missing") {
    doc = validateHandoffYaml(
      { ...given, status: given.status ?? "in_progress", files: given.files ?? git.uncommittedFiles, timestamp: at.toISOString() },
      at,
    );
  } else {
    doc = mergeHandoffYaml(loaded.data, { ...given, files: given.files ?? (git.uncommittedFiles.length > 0 ? git.uncommittedFiles : undefined) }, at);
  }
  const text = serializeHandoffYaml(doc);
  // Written again in block style, a file of flow lists under 1 MiB doubled past it: Baton then
  // refused to read its own file, and every later checkpoint failed.
  if (Buffer.byteLength(text, "utf8") > MAX_IMPORT_BYTES) {
    const message = `${path.relative(options.cwd, file) || file} would be larger than 1 MiB once written (${Buffer.byteLength(text, "utf8")} bytes), more than Baton reads; shorten it, nothing was overwritten`;
    throw new Invalid(message, { "(file)": [message] });
  }
  writeProjectFile(file, text);
  let pushed: PushedCheckpoint | null = null;
  if (options.push) {
    try {
      await options.beforePush?.();
      pushed = await pushCheckpoint({ text, handoffId: options.pushToNew ? null : mirrored, fileName: ".flow-guardian/handoff.yaml", project: options.project });
    } catch (error) {
      throw savedButNotPushed(error, path.relative(options.cwd, file) || file);
    }
    writeProjectFile(mirrorStatePath(root), `${JSON.stringify({ handoffId: pushed.handoff.id }, null, 2)}\n`);
  }
  return { root, file, mode: loaded.state === "missing" ? "saved" : "updated", doc, pushed };
}

/**
 * A push's refusal that first says the checkpoint itself was saved: the file is written before
 * the push, and a refusal alone ("the database is busy …; nothing of this request was stored")
 * read as if the checkpoint were lost. The same kind of error, so every door words it as before.
 */
function savedButNotPushed(error: unknown, shown: string): unknown {
  if (!isDomainError(error)) return error;
  const reason = error instanceof Invalid && Object.keys(error.fieldErrors).length > 0 ? describeFieldErrors(error.fieldErrors) : error.message;
  const Kind = error.constructor as new (message: string) => DomainError;
  return new Kind(`the checkpoint was saved to ${shown}, but not pushed to Baton: ${reason}`);
}
