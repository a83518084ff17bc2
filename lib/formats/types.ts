/**
 * The formats' vocabulary: format names, their labels (the one set every page and the CLI show),
 * and the shapes format modules exchange. Client-safe: the import form and the badges read it.
 */
import type { ClientSide, EntryType, SOURCE_FORMATS } from "../handoffs/schemas";
import type { EntryView, HandoffView } from "../handoffs/views";

export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** What people type for a format (`--format json`), and what each means. */
export const FORMAT_ALIASES: Record<string, SourceFormat> = {
  bundle: "bundle",
  json: "handoff_json",
  handoff_json: "handoff_json",
  "handoff.json": "handoff_json",
  yaml: "handoff_yaml",
  yml: "handoff_yaml",
  handoff_yaml: "handoff_yaml",
  "handoff.yaml": "handoff_yaml",
};

export const FORMAT_LABELS: Record<SourceFormat, string> = {
  bundle: "rip context bundle",
  handoff_json: "handoff.json",
  handoff_yaml: "handoff.yaml",
};

/** A quality problem the next agent would run into; shown, never blocking. */
export type QualityWarning = {
  code:
    | "vague_instruction"
    | "no_next_steps"
    | "blocked_without_blockers"
    | "complete_but_not_done"
    | "multiple_stories"
    | "missing_files"
    | "no_source_cut";
  /** The document field the warning is about. */
  field: string;
  message: string;
};

export type DraftEntry = {
  type: EntryType;
  fromClient: ClientSide;
  content: string;
  /** The document field the entry comes from, to name it when the entry is too large. */
  field: string;
};

/** Facts from the imported document that have no entry of their own, shown beside the thread. */
export type SourceMetadata = {
  branch?: string | null;
  files?: string[];
  sessionId?: string | null;
  /** The document's own timestamp (handoff.json, handoff.yaml). */
  documentTimestamp?: string | null;
  status?: string | null;
  reason?: string | null;
  storyId?: string | null;
  progressPercent?: number | null;
  artifacts?: { artifactId: string; note: string | null }[];
  /** The bundle's source cut, exactly as written (it may name a thread of another system). */
  sourceCut?: { threadId: string; seq: number; messageId: string | null } | null;
  /** Seq of the last entry created by the import: later entries were added in Baton. */
  importedThroughSeq?: number;
  /** Set by `baton checkpoint --push`: how many checkpoints this thread mirrors. */
  checkpoints?: number;
};

/** A thread ready to be created: what `toThread` returns. */
export type ThreadDraft = {
  title: string;
  entries: DraftEntry[];
  metadata: SourceMetadata;
  warnings: QualityWarning[];
  /** A bundle's source cut, with the field path of the ref that names it. */
  parent: { threadId: string; seq: number; messageId: string | null; field: string } | null;
};

/** Where an imported thread came from, as `fromThread` needs it. */
export type SourceRecord = {
  format: SourceFormat;
  /** The document as imported (or as last pushed by `baton checkpoint`). */
  document: string;
  metadata: SourceMetadata;
  /** A bundle source's own blob in the artifact store. */
  artifactId: string | null;
};

/**
 * An entry as an export reads it. loadSnapshot reads what the snapshot's format can use of it:
 * its content whole; or, for a summary's excerpt, its text trimmed, and when that is longer than
 * any excerpt only its start, with `trimmedBytes`, the UTF-8 bytes of the whole trimmed text; or
 * nothing (empty), when no export of that format reads it.
 */
export type SnapshotEntry = EntryView & { trimmedBytes?: number };

/** A thread cut at `cut` (entries with seq ≤ cut), with its source when it was imported. */
export type HandoffSnapshot = {
  handoff: HandoffView;
  /** The format it was read for: its entries hold what that format's export uses (loadSnapshot). */
  format: SourceFormat;
  entries: SnapshotEntry[];
  cut: number | null;
  source: SourceRecord | null;
  /**
   * Exports give an imported thread's source document back while nothing was added since.
   * A close archive must name the thread itself, so it turns this off.
   */
  reuseSourceDocument: boolean;
};

/** A format: its zod schema plus parse / toThread / fromThread / serialize. */
export type FormatModule<Doc> = {
  format: SourceFormat;
  /** Text → validated document; throws `Invalid` naming every bad field path. */
  parse(text: string): Doc;
  /** The syntax `parse` reads (a bundle and handoff.json: JSON), and what it reads validated. */
  syntax: "json" | "yaml";
  validate(value: unknown): Doc;
  /** Import: the thread this document becomes. */
  toThread(doc: Doc): ThreadDraft;
  /** Export: the document for a thread cut. */
  fromThread(snapshot: HandoffSnapshot): Doc;
  /** The document's bytes as Baton writes them. */
  serialize(doc: Doc): string;
  fileName: string;
  contentType: string;
};
