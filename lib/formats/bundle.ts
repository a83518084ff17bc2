import { z } from "zod";
import { canonicalJson, parseJsonPrecisely } from "./canonical-json";
import { entryText, firstLine, MAX_LIST_ITEMS, parseJsonText, requiredAs, validateDocument } from "./schema-helpers";
import { latestUnchangedImport, sourceFiles } from "./snapshot";
import { MAX_SUMMARY_BYTES, summarizeHandoff } from "./summarize-handoff";
import type { FormatModule, QualityWarning, ThreadDraft, HandoffSnapshot } from "./types";

export const BUNDLE_SCHEMA = "rip.handoff_context_bundle.v1";
export const SOURCE_CUT_NOTE = "source cut";
/** Size a bundle Baton writes stays within (its summary is trimmed to fit; see summarizeHandoff). */
export const MAX_BUNDLE_BYTES = 64 * 1024;

const note = () => z.string(requiredAs("a string or null")).max(4096, { error: "must be at most 4096 characters" }).nullish();
const id = () =>
  z
    .string(requiredAs("a string"))
    .min(1, { error: "must not be empty" })
    .max(255, { error: "must be at most 255 characters" });
const list = <Item extends z.ZodType>(item: Item) =>
  z.array(item, requiredAs("a list (it may be empty)")).max(MAX_LIST_ITEMS, { error: `must have at most ${MAX_LIST_ITEMS} items` });

/** A workspace-relative path with forward slashes, as the seed requires. */
const workspacePath = z
  .string(requiredAs("a string"))
  .min(1, { error: "must not be empty" })
  .max(1024, { error: "must be at most 1024 characters" })
  .refine((path) => !path.includes("\\"), { error: "must use forward slashes" })
  .refine((path) => !path.startsWith("/") && !/^[A-Za-z]:/.test(path), { error: "must be workspace-relative, not absolute" });

/** rip.handoff_context_bundle.v1 (seed 001). */
export const bundleSchema = z.object({
  schema: z.literal(BUNDLE_SCHEMA, {
    error: (issue) =>
      issue.input === undefined
        ? "is required"
        : `unknown schema ${JSON.stringify(issue.input)?.slice(0, 80)}; Baton reads "${BUNDLE_SCHEMA}"`,
  }),
  summary_markdown: entryText(),
  refs: z.object(
    {
      threads: list(
        z.object(
          {
            thread_id: id(),
            seq: z
              .number(requiredAs("a whole number ≥ 0"))
              .int({ error: "must be a whole number ≥ 0" })
              .min(0, { error: "must be a whole number ≥ 0" })
              .max(Number.MAX_SAFE_INTEGER, { error: "is too large" }),
            message_id: id().nullish(),
            note: note(),
          },
          requiredAs("an object with thread_id and seq"),
        ),
      ),
      artifacts: list(z.object({ artifact_id: id(), note: note() }, requiredAs("an object with artifact_id"))),
      files: list(z.object({ path: workspacePath, note: note() }, requiredAs("an object with path"))),
    },
    requiredAs("an object with threads, artifacts and files"),
  ),
});

export type Bundle = z.output<typeof bundleSchema>;
export type ThreadRef = Bundle["refs"]["threads"][number];

/** The ref that names the bundle's source cut (the one noted "source cut", else the first), with its field path. */
function sourceCutOf(bundle: Bundle): { ref: ThreadRef; field: string } | null {
  const { threads } = bundle.refs;
  const index = Math.max(0, threads.findIndex((ref) => ref.note === SOURCE_CUT_NOTE));
  return threads[index] ? { ref: threads[index], field: `refs.threads[${index}]` } : null;
}

function toThread(bundle: Bundle): ThreadDraft {
  const source = sourceCutOf(bundle);
  const cut = source?.ref;
  // An ATX heading with words on its own line: `[ \t]` and `\S` keep the match from running on
  // into the next line when the marks stand alone ("#" then a blank line is no heading).
  const heading = bundle.summary_markdown.match(/^ {0,3}#{1,6}[ \t]+(\S.*)$/m)?.[1];
  const warnings: QualityWarning[] = cut
    ? []
    : [
        {
          code: "no_source_cut",
          field: "refs.threads",
          message: "The bundle names no source thread: the child cannot link back to where its context came from.",
        },
      ];
  return {
    title: firstLine(heading ?? (cut ? `Context bundle from ${cut.thread_id} at seq ${cut.seq}` : "Context bundle")),
    // The child starts fresh: the summary is its base context; the parent's entries are not copied (ADR-0009).
    entries: [{ type: "context", fromClient: "chat", content: bundle.summary_markdown, field: "summary_markdown" }],
    metadata: {
      files: bundle.refs.files.map((ref) => ref.path),
      artifacts: bundle.refs.artifacts.map((ref) => ({ artifactId: ref.artifact_id, note: ref.note ?? null })),
      sourceCut: cut ? { threadId: cut.thread_id, seq: cut.seq, messageId: cut.message_id ?? null } : null,
    },
    warnings,
    parent: source ? { threadId: source.ref.thread_id, seq: source.ref.seq, messageId: source.ref.message_id ?? null, field: source.field } : null,
  };
}

const isWorkspacePath = (path: string) => workspacePath.safeParse(path).success;

/** Room the refs may take of a bundle Baton writes: the summary keeps at least a quarter. */
const MAX_REFS_BYTES = MAX_BUNDLE_BYTES - MAX_BUNDLE_BYTES / 4;

/**
 * The refs carried over from the thread's source (its bundle's artifact and file refs, the files
 * a handoff.json or handoff.yaml named) cut to what a bundle holds: at most MAX_LIST_ITEMS a
 * list, the base bundle ref included, and MAX_REFS_BYTES in all, the last files, then the last
 * artifacts left out first (the base bundle, named first, still holds every ref of its own). A
 * bundle imported with 200 artifact refs was exported with 201, which Baton then refused to write
 * (its close archive too), and refs at the import's 1 MiB left the summary nothing.
 */
function fittedRefs(refs: Bundle["refs"], carriedFrom: number): Bundle["refs"] {
  const artifacts = refs.artifacts.slice(0, MAX_LIST_ITEMS);
  const files = refs.files.slice(0, MAX_LIST_ITEMS);
  const cost = (ref: object) => Buffer.byteLength(canonicalJson(ref), "utf8") + 1;
  let over = Buffer.byteLength(canonicalJson({ schema: BUNDLE_SCHEMA, summary_markdown: "", refs: { ...refs, artifacts, files } }), "utf8") - MAX_REFS_BYTES;
  while (over > 0 && files.length > 0) over -= cost(files.pop()!);
  while (over > 0 && artifacts.length > carriedFrom) over -= cost(artifacts.pop()!);
  return { threads: refs.threads, artifacts, files };
}

/**
 * Export a cut. A bundle-imported child cut at its import gives its bundle back (it carries
 * exactly that context); otherwise the summary of the entries up to the cut, with the cut as
 * `refs.threads[0]` and, for a child, its own parent cut and base bundle as further refs.
 */
function fromThread(snapshot: HandoffSnapshot): Bundle {
  const unchanged = latestUnchangedImport(snapshot, "bundle");
  if (snapshot.reuseSourceDocument && unchanged && unchanged.added.length === 0) return parseJsonPrecisely(unchanged.document) as Bundle;
  const { handoff, entries, source } = snapshot;
  const cut = entries.at(-1)?.seq ?? 0;
  const parentCut = source?.metadata.sourceCut;
  const base = source?.format === "bundle" && source.artifactId ? [{ artifact_id: source.artifactId, note: "base context bundle" }] : [];
  const refs = fittedRefs(
    {
      threads: [
        { thread_id: handoff.id, seq: cut, message_id: null, note: SOURCE_CUT_NOTE },
        ...(parentCut ? [{ thread_id: parentCut.threadId, seq: parentCut.seq, message_id: parentCut.messageId, note: "parent cut" }] : []),
      ],
      artifacts: [...base, ...(source?.metadata.artifacts ?? []).map((ref) => ({ artifact_id: ref.artifactId, note: ref.note }))],
      files: sourceFiles(snapshot)
        .filter(isWorkspacePath)
        .map((path) => ({ path, note: null })),
    },
    base.length,
  );
  // The summary gets what the refs leave of the bundle's 64 KiB (never less than a quarter of it).
  const frame = Buffer.byteLength(canonicalJson({ schema: BUNDLE_SCHEMA, summary_markdown: "", refs }), "utf8");
  const budget = Math.min(MAX_SUMMARY_BYTES, Math.max(MAX_BUNDLE_BYTES / 4, MAX_BUNDLE_BYTES - frame));
  return { schema: BUNDLE_SCHEMA, summary_markdown: summarizeHandoff(handoff, entries, budget), refs };
}

export const bundleFormat: FormatModule<Bundle> = {
  format: "bundle",
  parse: (text) => bundleFormat.validate(parseJsonText(text)),
  syntax: "json",
  validate: (value) => validateDocument(bundleSchema, value, "a context bundle"),
  toThread,
  fromThread,
  // Canonical bytes: the artifact id is their SHA-256, so equal bundles get equal ids.
  serialize: (bundle) => canonicalJson(bundle),
  fileName: "context-bundle.json",
  contentType: "application/json; charset=utf-8",
};
