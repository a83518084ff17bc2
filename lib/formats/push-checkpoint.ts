import "server-only";
import { write } from "../database";
import { Conflict } from "../errors";
import { HANDOFF_ID_PATTERN, MAX_CONTENT_BYTES } from "../handoffs/schemas";
import { cleanEntry } from "../handoffs/clean-texts";
import { appendEntryIn, handoffExists } from "../handoffs/store";
import type { EntryView, HandoffView } from "../handoffs/views";
import type { Redaction } from "../secrets";
import { handoffYamlFormat, type HandoffYaml } from "./handoff-yaml";
import { cleanedTextsOf, importPlanIn } from "./import-document";
import { firstLine } from "./schema-helpers";
import { planImport } from "./plan-import";
import { metadataOf, replaceSourceDocument, sourceOf } from "./sources";

export type PushCheckpointOptions = {
  /** handoff.yaml text, as `baton checkpoint` just wrote it. */
  text: string;
  /** The thread earlier pushes mirrored into, if any. */
  handoffId: string | null;
  fileName?: string;
  project?: string;
};

export type PushedCheckpoint = {
  handoff: HandoffView;
  /** True when a new thread was started (first push, or the previous thread is gone or completed). */
  created: boolean;
  entry: EntryView | null;
  /** Secrets replaced in the checkpoint before it was stored. */
  redactions: Redaction[];
};

function checkpointEntry(doc: HandoffYaml): string {
  const lines = [`**Checkpoint** · ${doc.status} · ${doc.timestamp}`, `**Now:** ${doc.now}`];
  if (doc.hypothesis) lines.push(`**Hypothesis:** ${doc.hypothesis}`);
  if (doc.outcome) lines.push(`**Outcome:** ${doc.outcome}`);
  if (doc.files?.length) lines.push(`**Files:** ${doc.files.map((file) => `\`${file}\``).join(", ")}`);
  if (doc.branch) lines.push(`**Branch:** \`${doc.branch}\``);
  const full = lines.join("\n\n");
  if (Buffer.byteLength(full, "utf8") <= MAX_CONTENT_BYTES) return full;
  return `${lines[0]}\n\n**Now:** ${firstLine(doc.now, 2000)}\n\n(The full checkpoint is the thread's source document.)`;
}

/**
 * Mirrors a flow-guardian checkpoint into Baton. The first push imports it as a new thread;
 * later pushes add a `progress` entry to that thread (through lib/handoffs, so a completed thread
 * refuses as add_to_handoff does) and replace its source document, so an export gives back the
 * latest handoff.yaml. `handoffId: null` starts a new thread.
 */
export async function pushCheckpoint(options: PushCheckpointOptions): Promise<PushedCheckpoint> {
  const plan = await planImport({ text: options.text, format: "handoff_yaml", fileName: options.fileName, project: options.project });
  // The plan's text has its secrets redacted: the entry and the kept document are built from it.
  const doc = handoffYamlFormat.parse(plan.text);
  const entry = cleanEntry({ fromClient: "code", type: "progress", content: checkpointEntry(doc) });
  return write(async (tx) => {
    const id = options.handoffId && HANDOFF_ID_PATTERN.test(options.handoffId) && (await handoffExists(tx, options.handoffId)) ? options.handoffId : null;
    const source = id ? await sourceOf(tx, id, { forUpdate: true }) : undefined;
    if (!id || source?.format !== "handoff_yaml") {
      const imported = await importPlanIn(tx, plan, cleanedTextsOf(plan), null, { checkpoints: 1 });
      return { handoff: imported.handoff, created: true, entry: null, redactions: imported.redactions };
    }
    let appended;
    try {
      appended = await appendEntryIn(tx, id, entry);
    } catch (error) {
      if (error instanceof Conflict) throw new Conflict(`${error.message}: \`baton checkpoint --push --new\` mirrors this checkpoint into a new handoff`);
      throw error;
    }
    const previous = metadataOf(source);
    await replaceSourceDocument(tx, id, {
      document: plan.text,
      fileName: plan.fileName,
      metadata: { ...plan.draft.metadata, checkpoints: (previous.checkpoints ?? 1) + 1, importedThroughSeq: appended.entry.seq },
      warnings: plan.draft.warnings,
    });
    return { handoff: appended.handoff, created: false, entry: appended.entry, redactions: [...plan.redactions, ...appended.redactions] };
  });
}
