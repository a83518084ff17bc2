import "server-only";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";
import { read } from "../database";
import { Invalid, NotFound } from "../errors";
import { canonicalJson, parseJsonPrecisely } from "./canonical-json";
import { storedArtifactIn } from "./sources";

export const ARTIFACT_ID_PATTERN = /^[0-9a-f]{64}$/;

export function artifactIdOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** `<dataDir>/artifacts/blobs/<artifact id>`. */
export function blobPath(artifactId: string): string {
  return path.join(dataDir(), "artifacts", "blobs", artifactId);
}

export function checkArtifactId(artifactId: string): string {
  const trimmed = artifactId.trim().toLowerCase();
  if (!ARTIFACT_ID_PATTERN.test(trimmed)) {
    throw new Invalid("an artifact ID is 64 hexadecimal characters (the SHA-256 of the bundle)", {
      artifactId: ["must be 64 hexadecimal characters (the SHA-256 of the bundle)"],
    });
  }
  return trimmed;
}

/** Whether the file at `target` holds exactly the bytes named `artifactId` (false when missing). */
function holds(target: string, artifactId: string): boolean {
  try {
    return artifactIdOf(fs.readFileSync(target)) === artifactId;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Flushes a file or folder to the disk, so it survives a power cut once this returns. */
function fsyncPath(target: string): void {
  const fd = fs.openSync(target, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes bytes to the artifact folder under their SHA-256 and returns it, durably: when this
 * returns the file and its folder entry are on disk (fsync'd), so a caller may then delete what
 * the blob preserves. A blob already there is trusted only if its bytes still hash to its name;
 * a damaged one is rewritten. A new blob is written to a temporary name and renamed, so a reader
 * never sees half a file.
 */
export function writeBlob(bytes: Buffer): string {
  const artifactId = artifactIdOf(bytes);
  const target = blobPath(artifactId);
  const folder = path.dirname(target);
  if (holds(target, artifactId)) {
    // It may have been renamed in by a process that died before flushing: flush it now.
    fsyncPath(target);
    fsyncPath(folder);
    return artifactId;
  }
  // A bundle is a thread's text: its owner's alone whatever the umask, as the database is, also in
  // a data folder of the user's own that keeps its wider mode (BATON_DATA_DIR at ~/notes).
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const fd = fs.openSync(temporary, "wx", 0o600);
    try {
      fs.writeFileSync(fd, bytes);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  fsyncPath(folder);
  return artifactId;
}

/**
 * Copies a bundle the database already holds (artifacts.content) to the artifact folder, for
 * the tools that read the folder. The bundle is safe without the copy, so a folder that cannot
 * be written is reported, not a failure of what stored the bundle.
 */
export function mirrorBlob(text: string): void {
  const bytes = Buffer.from(text, "utf8");
  try {
    writeBlob(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`baton: bundle ${artifactIdOf(bytes)} is stored in the database; its copy in the artifact folder could not be written (${reason})`);
  }
}

/** The file's bytes, checked against its name (rows written before the content column have only it). */
function readBlobFile(id: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(blobPath(id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      // The server's folder is not named: a remote caller (an agent token) has no business knowing it.
      throw new NotFound(`artifact ${id} not found in the database or in the data folder's artifacts; check the ID (on the server: BATON_DATA_DIR)`);
    }
    throw error;
  }
  if (artifactIdOf(bytes) !== id) throw new Error(`artifact ${id} is corrupt: its bytes no longer hash to its name`);
  return bytes;
}

/** The canonical bytes of an imported bundle's document (null if it no longer parses). */
function canonicalBytesOf(document: string): Buffer | null {
  try {
    return Buffer.from(canonicalJson(parseJsonPrecisely(document)), "utf8");
  } catch {
    return null;
  }
}

/**
 * The blob's bytes, checked against its name: from the database first (any instance of a team
 * server answers), else from the artifact folder. Bytes that no longer hash to the name are
 * never answered.
 */
export async function readBlob(artifactId: string): Promise<Buffer> {
  const id = checkArtifactId(artifactId);
  const stored = await read((tx) => storedArtifactIn(tx, id));
  const bytes = stored === null ? null : "content" in stored ? Buffer.from(stored.content, "utf8") : canonicalBytesOf(stored.importedDocument);
  if (bytes && artifactIdOf(bytes) === id) return bytes;
  return readBlobFile(id);
}
