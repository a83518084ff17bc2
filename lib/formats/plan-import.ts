import "server-only";
import { z } from "zod";
import { optionalProjectSchema, titleSchema } from "../handoffs/schemas";
import { cleanText, type Redaction } from "../secrets";
import { blankToUndefined, operationInput, parseInput } from "../validation";
import { readBlob } from "./blobs";
import { canonicalJson, parseJsonPrecisely } from "./canonical-json";
import { chosenFormat, detectFormat } from "./detect-format";
import { FORMATS } from "./registry";
import { refuseLargeEntries } from "./schema-helpers";
import type { SourceFormat, ThreadDraft } from "./types";

export const importDocumentInput = operationInput({
  text: z.preprocess(blankToUndefined, z.string({ error: "must be text" }).optional()),
  artifactId: z.preprocess(blankToUndefined, z.string({ error: "must be text" }).optional()),
  fileName: z.preprocess(blankToUndefined, z.string().max(255, { error: "must be at most 255 characters" }).optional()),
  format: z.preprocess(blankToUndefined, z.string().optional()),
  project: optionalProjectSchema,
  title: z.preprocess(blankToUndefined, titleSchema.optional()),
}).refine((input) => input.text !== undefined || input.artifactId !== undefined, {
  error: "paste a document, choose a file or give an artifact ID",
  path: ["text"],
});

export type ImportDocumentOptions = {
  /** The document's text (a bundle, handoff.json or handoff.yaml). */
  text?: string;
  /** Or the id of a bundle in the artifact store. */
  artifactId?: string;
  fileName?: string;
  /** bundle | json | yaml (aliases allowed); detected when absent. */
  format?: string;
  project?: string;
  /** The new thread's title instead of the one the document gives (e.g. "Continue in a new thread"). */
  title?: string;
};

export type ImportPlan = {
  format: SourceFormat;
  detectedBecause: string;
  text: string;
  fileName: string | null;
  project: string | null;
  draft: ThreadDraft;
  /** For bundles: the canonical bytes stored content-addressed. */
  canonicalBundle: string | null;
  /** Secrets replaced in `text` before it was read, so the document kept and its entries agree (and in the file name). */
  redactions: Redaction[];
};

/**
 * Everything an import will do, computed without writing: the document read, its format
 * detected, validated (every bad field named by path) and turned into a thread draft.
 */
export async function planImport(options: ImportDocumentOptions): Promise<ImportPlan> {
  const input = parseInput(importDocumentInput, options);
  // A byte order mark (Windows editors write one) is no part of the document: JSON.parse refused it.
  const given = (input.artifactId !== undefined ? (await readBlob(input.artifactId)).toString("utf8") : input.text!).replace(/^\uFEFF/, "");
  const fileName = input.fileName ?? (input.artifactId ? `${input.artifactId.trim().toLowerCase()}.json` : null);
  const detection = input.format ? chosenFormat(input.format, given) : detectFormat(given, fileName ?? "");
  const { text, redactions } = cleanText("text", given, { document: detection.format === "handoff_yaml" ? "yaml" : "json" });
  // The file name is kept and shown beside the thread: a secret in it is stored no more than one in the text.
  const name = fileName === null ? null : cleanText("fileName", fileName);
  const codec = FORMATS[detection.format];
  // Parsed once: detection's reading stands when the text was not redacted and the format reads that syntax.
  const reused = text === given && detection.read?.syntax === codec.syntax ? detection.read : null;
  const read = codec.toThread(reused ? codec.validate(reused.value) : codec.parse(text));
  const draft = input.title === undefined ? read : { ...read, title: input.title };
  refuseLargeEntries(draft);
  return {
    format: detection.format,
    detectedBecause: detection.reason,
    text,
    fileName: name?.text ?? null,
    project: input.project ?? null,
    draft,
    canonicalBundle: detection.format === "bundle" ? canonicalJson(parseJsonPrecisely(text)) : null,
    redactions: [...redactions, ...(name?.redactions ?? [])],
  };
}
