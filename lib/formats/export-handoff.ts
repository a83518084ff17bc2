import "server-only";
import { z } from "zod";
import { Invalid } from "../errors";
import { handoffIdSchema } from "../handoffs/schemas";
import { MAX_INT4, read, write, type Tx } from "../database";
import { givenOnce, parseInput, wholeNumberParam, type GivenMoreThanOnce } from "../validation";
import { artifactIdOf, mirrorBlob } from "./blobs";
import { loadSnapshot, seqOfEntryNumber } from "./load-snapshot";
import { FORMATS } from "./registry";
import { MAX_IMPORT_BYTES, refuseLargeEntries } from "./schema-helpers";
import { recordArtifact } from "./sources";
import { FORMAT_LABELS, type SourceFormat, type HandoffSnapshot } from "./types";

export const exportHandoffInput = z
  .object({
    id: handoffIdSchema,
    format: z.preprocess((value, context) => givenOnce("format", value, context), z.string({ error: "format is required: bundle, json or yaml" })),
    // An entry's seq, plain digits as every door's numbers (a coerced `?cut=0x10` cut at seq 16).
    cut: wholeNumberParam("cut", 1, MAX_INT4),
    // The same cut named by the entry's number, #1 first: what the desk, get_handoff and people show.
    cutAtEntry: wholeNumberParam("cutAtEntry", 1, MAX_INT4),
  })
  .refine((input) => input.cut === undefined || input.cutAtEntry === undefined, {
    error: "give cut (an entry's seq) or cutAtEntry (its #number), not both",
    path: ["cutAtEntry"],
  });

/** As the doors hand them over: a query parameter given twice comes as GivenMoreThanOnce, refused by name. */
export type ExportHandoffOptions = {
  id: string;
  format?: string | GivenMoreThanOnce;
  cut?: number | string | GivenMoreThanOnce | null;
  cutAtEntry?: number | string | GivenMoreThanOnce | null;
};

/** `#42` given as the cut: the number people see, which `cut` (a seq) would read as another entry or refuse without saying why. */
function refuseNumberAsCut(cut: ExportHandoffOptions["cut"]): void {
  const number = typeof cut === "string" ? /^\s*#(\d+)\s*$/.exec(cut)?.[1] : undefined;
  if (number === undefined) return;
  const problem = `is an entry's seq, not its #number; for entry #${number} give cutAtEntry=${number}`;
  throw new Invalid(`cut ${problem}`, { cut: [problem] });
}

export type ExportedDocument = {
  format: SourceFormat;
  text: string;
  fileName: string;
  contentType: string;
  /** The seq the export was cut at (null: a completed thread's source document). */
  cut: number | null;
  /** The number of the entry it was cut at, as people see it (#12). */
  cutNumber: number | null;
  /** Bundles only: the bundle's SHA-256, its id in `artifacts` and its name under `<dataDir>/artifacts/blobs/`. */
  artifactId: string | null;
};

export type RenderedDocument = Omit<ExportedDocument, "artifactId">;

/** The document for a snapshot, checked by reading it back as an import would: Baton never writes what it would refuse. */
export function renderSnapshot(snapshot: HandoffSnapshot): RenderedDocument {
  const { handoff, entries, source, format } = snapshot;
  if (entries.length === 0 && source?.format !== format) {
    throw new Invalid(
      `handoff ${handoff.id} has no entries to export${handoff.status === "completed" ? " (they were wiped when it closed)" : ""}`,
      { id: ["has no entries to export"] },
    );
  }
  const codec = FORMATS[format];
  const text = codec.serialize(codec.fromThread(snapshot));
  // A document imported near 1 MiB can pass it once written again (YAML's own layout) or once
  // entries are folded in: the thread's size, not Baton's failure, and a bundle always fits.
  if (Buffer.byteLength(text, "utf8") > MAX_IMPORT_BYTES) {
    const message = `handoff ${handoff.id} as a ${FORMAT_LABELS[format]} would be larger than 1 MiB, more than an import reads; export it as a bundle`;
    throw new Invalid(message, { format: ["makes a document larger than 1 MiB; use bundle"] });
  }
  try {
    refuseLargeEntries(codec.toThread(codec.parse(text)));
  } catch (error) {
    // Not the caller's input: Baton built this document. Reported as Baton's failure, never as
    // bad arguments (an agent told to "fix the arguments" of close_handoff could not).
    throw new Error(`Baton built a ${FORMAT_LABELS[format]} it would refuse: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const cutPart = snapshot.cut === null ? "" : `-cut-${snapshot.cut}`;
  return { format, text, fileName: `${handoff.id}${cutPart}.${codec.fileName}`, contentType: codec.contentType, cut: snapshot.cut, cutNumber: snapshot.cut === null ? null : (entries.at(-1)?.number ?? null) };
}

/**
 * Records a rendered bundle, bytes included, under its SHA-256: the same cut always gives the
 * same id. The caller copies it to the artifact folder (mirrorBlob) once the transaction is over.
 */
export async function recordBundleIn(tx: Tx, handoffId: string, rendered: RenderedDocument, purpose: "export" | "close_archive"): Promise<string> {
  const artifactId = artifactIdOf(Buffer.from(rendered.text, "utf8"));
  await recordArtifact(tx, { id: artifactId, handoffId, cutSeq: rendered.cut, purpose, content: rendered.text });
  return artifactId;
}

async function renderExport(options: ExportHandoffOptions): Promise<{ id: string; rendered: RenderedDocument }> {
  refuseNumberAsCut(options.cut);
  const input = parseInput(exportHandoffInput, options);
  const snapshot = await read(async (tx) => {
    const cut = input.cutAtEntry === undefined ? (input.cut ?? null) : await seqOfEntryNumber(tx, input.id, input.cutAtEntry);
    return loadSnapshot(tx, input.id, cut, input.format);
  });
  return { id: input.id, rendered: renderSnapshot(snapshot) };
}

/**
 * A thread cut at `cut` (a seq) or `cutAtEntry` (an entry's #number; default: its last entry)
 * as a rip context bundle, handoff.json or handoff.yaml, for a download: it only reads (a GET may come from any page the operator visits,
 * and each cut would otherwise store a blob). exportHandoff keeps a bundle.
 */
export async function downloadHandoff(options: ExportHandoffOptions): Promise<ExportedDocument> {
  return { ...(await renderExport(options)).rendered, artifactId: null };
}

/**
 * Exports a thread cut at `cut` (default: its last entry) as a rip context bundle, handoff.json
 * or handoff.yaml. A bundle is also recorded as an artifact and stored under its SHA-256.
 */
export async function exportHandoff(options: ExportHandoffOptions): Promise<ExportedDocument> {
  const { id, rendered } = await renderExport(options);
  if (rendered.format !== "bundle") return { ...rendered, artifactId: null };
  const artifactId = await write((tx) => recordBundleIn(tx, id, rendered, "export"));
  mirrorBlob(rendered.text);
  return { ...rendered, artifactId };
}
