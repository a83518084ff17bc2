import "server-only";
import fs from "node:fs/promises";
import { resolveStoredPath } from "./handoff-document";

/** A handoff document as the page shows it; anything but "ok" is a notice, never an error page. */
export type HandoffDocumentContent =
  | { status: "ok"; filePath: string; content: string }
  | { status: "no path" }
  | { status: "outside"; filePath: string }
  | { status: "missing"; filePath: string }
  | { status: "unreadable"; filePath: string; reason: string };

/** Reads a record's document, refusing any path that resolves outside the data folder. */
export async function readHandoffDocument(filePath: string | null): Promise<HandoffDocumentContent> {
  if (!filePath) return { status: "no path" };
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
