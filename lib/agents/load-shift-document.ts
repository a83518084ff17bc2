import "server-only";
import fs from "node:fs/promises";
import { read } from "../database";
import { resolveStoredPath } from "./shift-document";

/** A shift document as the page shows it; anything but "ok" is a notice, never an error page. */
export type ShiftDocumentContent =
  | { status: "ok"; filePath: string; content: string }
  | { status: "no path" }
  | { status: "outside"; filePath: string }
  | { status: "missing"; filePath: string }
  | { status: "unreadable"; filePath: string; reason: string };

/**
 * Reads a record's document: the copy in the database (written with the record, so every
 * instance of a team server can serve it), else the file at `filePath` (records from before
 * documents were stored), refusing any path that resolves outside the data folder. The record is
 * found by `recordId` when the caller has it (an index seek), else by its path.
 */
export async function loadShiftDocument(filePath: string | null, recordId?: number): Promise<ShiftDocumentContent> {
  if (!filePath) return { status: "no path" };
  // A NUL cannot be stored in PostgreSQL text nor name a file: no record has such a path.
  if (filePath.includes("\0")) return { status: "outside", filePath };
  const stored = await read((tx) =>
    recordId === undefined
      ? tx.get<{ document: string | null }>("SELECT document FROM handoff_records WHERE file_path = ? ORDER BY id DESC LIMIT 1", [filePath])
      : tx.get<{ document: string | null }>("SELECT document FROM handoff_records WHERE id = ?", [recordId]),
  );
  if (stored?.document != null) return { status: "ok", filePath, content: stored.document };
  const absolute = resolveStoredPath(filePath);
  if (!absolute) return { status: "outside", filePath };
  try {
    return { status: "ok", filePath, content: await fs.readFile(absolute, "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { status: "missing", filePath };
    return { status: "unreadable", filePath, reason: code ?? (error as Error).message };
  }
}
