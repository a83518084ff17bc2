import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";
import { Invalid, NotFound } from "../errors";

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

/**
 * Stores bytes under their SHA-256 and returns it. Writing the same bytes again changes nothing;
 * a new blob is written to a temporary name and renamed, so a reader never sees half a file.
 */
export function writeBlob(bytes: Buffer): string {
  const artifactId = artifactIdOf(bytes);
  const target = blobPath(artifactId);
  if (fs.existsSync(target)) return artifactId;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
  fs.writeFileSync(temporary, bytes);
  fs.renameSync(temporary, target);
  return artifactId;
}

/** The blob's bytes, checked against its name. */
export function readBlob(artifactId: string): Buffer {
  const id = checkArtifactId(artifactId);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(blobPath(id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new NotFound(`artifact ${id} not found in ${path.dirname(blobPath(id))}; check the ID or the data folder (BATON_DATA_DIR)`);
    }
    throw error;
  }
  if (artifactIdOf(bytes) !== id) throw new Error(`artifact ${id} is corrupt: its bytes no longer hash to its name`);
  return bytes;
}
