import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { dataDir } from "../config";
import { read, type Tx } from "../database";
import { Conflict, Invalid } from "../errors";
import { alreadyHandedOffConflict } from "./conflicts";
import { makePrivateFolder } from "../paths.mjs";
import { textListSql } from "./rows";
import { PERSONA_SLUG_PATTERN } from "./schemas";
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

/** A name of `shortId`'s documents, or of writeShiftDocument's temporary files of them (`shortId` may be a pattern, a capture group). */
const leftoverNamePattern = (shortId: string) => {
  const documentName = documentNamePattern(shortId);
  return new RegExp(`^(?:${documentName}|\\.${documentName}\\.[0-9a-f]{12}\\.tmp)$`);
};

/**
 * Of these files (relative to the data folder), those no handoff record names: a temporary file
 * never is. One statement however many: a sweep looks at every old document, most of them named.
 */
async function unnamedByRecords(tx: Tx, relatives: string[]): Promise<string[]> {
  const named = await tx.rows<[string]>(`SELECT file_path FROM handoff_records WHERE file_path IN ${textListSql(tx)}`, [JSON.stringify(relatives)]);
  const namedSet = new Set(named.map(([relative]) => relative));
  return relatives.filter((relative) => !namedSet.has(relative));
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
  const ours = leftoverNamePattern(shortId);
  const candidates = (await fs.readdir(folder)).filter((name) => ours.test(name) && name !== path.basename(kept.absolute));
  if (candidates.length === 0) return;
  const relativeFolder = path.posix.dirname(kept.relative);
  const unnamed = await read((tx) => unnamedByRecords(tx, candidates.map((name) => `${relativeFolder}/${name}`)));
  for (const relative of unnamed) await fs.rm(path.join(folder, path.posix.basename(relative)), { force: true });
}

/**
 * How old a document no record names (or a temporary file) must be to count as a killed
 * handoff's leftover rather than an attempt under way: an attempt commits its record (or removes
 * its file) within its waits, seconds (git 3 s a call, the database's lock 10 s on SQLite, a
 * statement 30 s on PostgreSQL), far within this.
 */
export const LEFTOVER_AGE_MS = 5 * 60_000;

/**
 * Removes what killed handoffs left in every persona's folder, whichever agent and whether or not
 * it hands off again: its files (removeLeftoverDocuments's kind) older than LEFTOVER_AGE_MS,
 * of an agent this database knows. A document of an agent it does not know (a data folder used
 * with another database) is not its to remove. Only regular files inside the data folder.
 */
export async function removeAbandonedDocuments(now = Date.now()): Promise<string[]> {
  const root = dataDir();
  const personas = path.join(root, "personas");
  let realRoot: string;
  let slugs: string[];
  try {
    realRoot = await fs.realpath(root);
    slugs = await fs.readdir(personas);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const anyAgents = leftoverNamePattern("([0-9a-f]{8})");
  const old: { relative: string; shortId: string }[] = [];
  for (const slug of slugs.filter((name) => PERSONA_SLUG_PATTERN.test(name))) {
    const folder = path.join(personas, slug, "handoffs");
    const names = await fs.readdir(folder).catch(() => [] as string[]);
    if (names.length === 0 || !isInside(realRoot, await fs.realpath(folder))) continue;
    for (const name of names) {
      const match = anyAgents.exec(name);
      if (!match) continue;
      const stat = await fs.lstat(path.join(folder, name)).catch(() => null);
      if (stat?.isFile() && now - stat.mtimeMs >= LEFTOVER_AGE_MS) old.push({ relative: `personas/${slug}/handoffs/${name}`, shortId: match[1] ?? match[2] });
    }
  }
  if (old.length === 0) return [];
  const abandoned = await read(async (tx) => {
    const unnamed = new Set(await unnamedByRecords(tx, old.map((file) => file.relative)));
    const found: string[] = [];
    for (const file of old) {
      if (unnamed.has(file.relative) && (await tx.get("SELECT 1 AS known FROM agents WHERE session_id LIKE ?", [`${file.shortId}%`]))) found.push(file.relative);
    }
    return found;
  });
  for (const relative of abandoned) await fs.rm(path.join(root, relative), { force: true });
  return abandoned;
}

/**
 * removeAbandonedDocuments now and every LEFTOVER_AGE_MS, for the server's life: a crash leaves
 * nothing past that (a leftover too young at one pass goes at the next), whether the server or a
 * `baton mcp` process was killed. Housekeeping: a failed pass is logged, never fatal.
 */
export function startLeftoverSweeps(): { stop: () => void } {
  const sweep = () => {
    removeAbandonedDocuments().catch((error: unknown) => console.error("baton: could not remove what killed shift handoffs left", error));
  };
  sweep();
  const timer = setInterval(sweep, LEFTOVER_AGE_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
