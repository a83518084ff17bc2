import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { dataDir } from "../config";
import { Conflict, Invalid } from "../errors";
import { handoffDocumentLocation, isInside, type DocumentLocation } from "./handoff-document";

export type WriteHandoffDocumentOptions = { personaSlug: string; shortId: string; at: Date; document: string };

/**
 * Writes the document atomically and without overwriting: the text goes to a temporary file in
 * the same folder, which is then linked to its final name (fails if that name exists, unlike a
 * rename) and unlinked. Readers see either no document or the whole one.
 */
export async function writeHandoffDocument(options: WriteHandoffDocumentOptions): Promise<DocumentLocation> {
  const location = handoffDocumentLocation(options.personaSlug, options.shortId, options.at);
  const folder = path.dirname(location.absolute);
  await fs.mkdir(folder, { recursive: true });
  // A persona folder that is a symbolic link out of the data folder is refused before writing.
  const [realRoot, realFolder] = await Promise.all([fs.realpath(dataDir()), fs.realpath(folder)]);
  if (!isInside(realRoot, realFolder)) {
    throw new Invalid(`the folder for ${location.relative} resolves outside the data folder; refusing to write there`);
  }
  const temporary = path.join(folder, `.${path.basename(location.absolute)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await fs.writeFile(temporary, options.document, { encoding: "utf8", flag: "wx" });
    const handle = await fs.open(temporary, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.link(temporary, location.absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new Conflict(`a handoff document for agent ${options.shortId} is already being written (${location.relative})`);
    }
    throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
  return location;
}

/** Removes a document this process wrote (when its transaction failed). */
export async function removeHandoffDocument(location: DocumentLocation): Promise<void> {
  await fs.rm(location.absolute, { force: true });
}
