import { writeTransaction } from "../db";
import { HANDOFF_ID_PATTERN, MAX_CONTENT_BYTES, type HandoffView } from "../handoffs";
import { toEntryView, toHandoffView, type EntryView } from "../handoffs/views";
import { handoffYamlFormat, type HandoffYaml } from "./handoff-yaml";
import { importPlanIn } from "./import-document";
import { metadataOf } from "./load-snapshot";
import { firstLine } from "./schema-helpers";
import { planImport } from "./plan-import";

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
 * later pushes add a `progress` entry to that thread and replace its source document, so an
 * export gives back the latest handoff.yaml.
 */
export async function pushCheckpoint(options: PushCheckpointOptions): Promise<PushedCheckpoint> {
  const plan = planImport({ text: options.text, format: "handoff_yaml", fileName: options.fileName, project: options.project });
  const doc = handoffYamlFormat.parse(options.text);
  return writeTransaction(async (tx) => {
    const existing =
      options.handoffId && HANDOFF_ID_PATTERN.test(options.handoffId)
        ? await tx.handoff.findUnique({ where: { id: options.handoffId }, include: { source: true } })
        : null;
    if (!existing || existing.status !== "active" || existing.source?.format !== "handoff_yaml") {
      const imported = await importPlanIn(tx, plan, null, { checkpoints: 1 });
      return { handoff: imported.handoff, created: true, entry: null };
    }
    const now = new Date();
    const row = await tx.entry.create({
      data: { handoffId: existing.id, fromClient: "code", type: "progress", content: checkpointEntry(doc), createdAt: now },
    });
    const previous = metadataOf(existing.source);
    await tx.handoffSource.update({
      where: { handoffId: existing.id },
      data: {
        document: options.text,
        fileName: plan.fileName,
        metadata: JSON.stringify({ ...plan.draft.metadata, checkpoints: (previous.checkpoints ?? 1) + 1, importedThroughSeq: row.seq }),
        warnings: JSON.stringify(plan.draft.warnings),
      },
    });
    const handoff = await tx.handoff.update({ where: { id: existing.id }, data: { updatedAt: now, codeLastSeen: row.seq } });
    return { handoff: toHandoffView(handoff), created: false, entry: toEntryView(row) };
  });
}
