import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { dataDir } from "../config";
import { read } from "../database";
import { Conflict, Invalid } from "../errors";
import { alreadyHandedOffConflict } from "./conflicts";
import { makePrivateFolder } from "../paths.mjs";
import { documentNamePattern, shiftDocumentLocation, isInside, type DocumentLocation } from "./shift-document";

export type WriteShiftDocumentOptions = { personaSlug: string; shortId: string; at: Date; document: string };

/**
 * Creates `relative` under `root` one folder at a time, refusing (before creating anything
 * beneath it) any existing folder that resolves outside the root, e.g. a symbolic link. What it
 * makes, the data folder too, is its owner's alone, as the database is: a document is the agent's
 * notes, not for the machine's other users.
 */
async function makeFolderInside(root: string, relative: string): Promise<string> {
  makePrivateFolder(root);
  const realRoot = await fs.realpath(root);
  let folder = root;
  for (const segment of relative.split("/")) {
    folder = path.join(folder, segment);
    try {
      await fs.mkdir(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (!isInside(realRoot, await fs.realpath(folder))) {
      throw new Invalid(`the folder ${path.relative(root, folder)} resolves outside the data folder; refusing to write there`);
    }
  }
  return folder;
}

/**
 * Writes the document atomically and without overwriting: the text goes to a temporary file in
 * the same folder, which is then linked to its final name (fails if that name exists, unlike a
 * rename) and unlinked. Readers see either no document or the whole one. The file is its owner's
 * alone (0600).
 */
export async function writeShiftDocument(options: WriteShiftDocumentOptions): Promise<DocumentLocation> {
  const location = shiftDocumentLocation(options.personaSlug, options.shortId, options.at);
  const folder = await makeFolderInside(dataDir(), path.dirname(location.relative));
  const temporary = path.join(folder, `.${path.basename(location.absolute)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await fs.writeFile(temporary, options.document, { encoding: "utf8", flag: "wx", mode: 0o600 });
    const handle = await fs.open(temporary, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.link(temporary, location.absolute);
  } catch (error) {
    const { code, path: on } = error as NodeJS.ErrnoException;
    if (code === "EEXIST") {
      // Each attempt's name has a random part (shiftDocumentLocation): taken only by a rare chance, and free again for a retry.
      throw new Conflict(`the name ${location.relative} was taken; nothing was handed off: hand off again`);
    }
    // Only removeLeftoverDocuments removes another's temporary file: after a handoff of this agent committed.
    if (code === "ENOENT" && on === temporary) throw alreadyHandedOffConflict(options.shortId);
    throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
  return location;
}

/** Removes a document this process wrote (when its transaction failed). */
export async function removeShiftDocument(location: DocumentLocation): Promise<void> {
  await fs.rm(location.absolute, { force: true });
}

/**
 * Removes what earlier attempts at this agent's handoff left in its folder: a document written
 * before its record, or a temporary file, by a server killed midway (SIGKILL, a power cut), whose
 * agent stayed active to hand off again. Run once `kept`'s record is committed: an attempt still
 * under way for this agent then fails and removes its own file anyway. A document some record
 * names (another agent whose id starts the same) stays.
 */
export async function removeLeftoverDocuments(kept: DocumentLocation, shortId: string): Promise<void> {
  const folder = path.dirname(kept.absolute);
  // The agent's documents, and writeShiftDocument's temporary files of them.
  const documentName = documentNamePattern(shortId);
  const ours = new RegExp(`^(?:${documentName}|\\.${documentName}\\.[0-9a-f]{12}\\.tmp)$`);
  const candidates = (await fs.readdir(folder)).filter((name) => ours.test(name) && name !== path.basename(kept.absolute));
  if (candidates.length === 0) return;
  const relativeFolder = path.posix.dirname(kept.relative);
  // Few, if any: one lookup each.
  const unnamed = await read(async (tx) => {
    const found: string[] = [];
    for (const name of candidates) {
      if (!(await tx.get("SELECT 1 AS named FROM handoff_records WHERE file_path = ?", [`${relativeFolder}/${name}`]))) found.push(name);
    }
    return found;
  });
  for (const name of unnamed) await fs.rm(path.join(folder, name), { force: true });
}
