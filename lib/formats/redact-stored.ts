import "server-only";
import fs from "node:fs";
import path from "node:path";
import { read, write, type Tx } from "../database";
import type { StoredTextRedactor } from "../secrets/stored-redactor";
import { artifactIdOf, blobPath, writeBlob } from "./blobs";
import { canonicalJson, parseJsonPrecisely } from "./canonical-json";

/** Rows read at a time from the artifacts, so memory stays flat. */
const PAGE_ROWS = 1000;

function canonicalOrNull(json: string): string | null {
  try {
    return canonicalJson(parseJsonPrecisely(json));
  } catch {
    return null;
  }
}

/**
 * For the sweep of stored secrets (lib/jobs/secrets-sweep.ts): imported documents and their file
 * names, rewritten where `redactor` says, in the caller's transaction. An imported bundle's
 * artifact is its document's canonical form, so it moves with it. Answers the new blobs to write
 * once the transaction committed (writeRedactedBlobs), and the handoffs whose document or file
 * name it rewrote.
 */
export async function redactImportedDocumentsIn(tx: Tx, redactor: StoredTextRedactor): Promise<{ newBlobs: string[]; rewritten: string[] }> {
  const newBlobs: string[] = [];
  const rewritten: string[] = [];
  const sources = await tx.all<{ handoff_id: string; format: string; document: string; artifact_id: string | null; file_name: string | null }>(
    "SELECT handoff_id, format, document, artifact_id, file_name FROM handoff_sources",
  );
  for (const { handoff_id, format, document, artifact_id, file_name } of sources) {
    // The file name is shown beside the thread, and was kept as given before imports checked it.
    const fileName = file_name === null ? null : redactor(`file name of the imported document of ${handoff_id}`, file_name);
    if (fileName !== null) await tx.run("UPDATE handoff_sources SET file_name = ? WHERE handoff_id = ?", [fileName, handoff_id]);
    const redacted = redactor(`imported document of ${handoff_id}`, document, { document: format === "handoff_yaml" ? "yaml" : "json" });
    if (fileName !== null || redacted !== null) rewritten.push(handoff_id);
    if (redacted === null) continue;
    const canonical = format === "bundle" && artifact_id !== null ? canonicalOrNull(redacted) : null;
    if (canonical !== null) newBlobs.push(canonical);
    const artifactId = canonical === null ? artifact_id : artifactIdOf(Buffer.from(canonical, "utf8"));
    await tx.run("UPDATE handoff_sources SET document = ?, artifact_id = ? WHERE handoff_id = ?", [redacted, artifactId, handoff_id]);
  }
  return { newBlobs, rewritten };
}

/** The blobs redactImportedDocumentsIn answered, written once its transaction committed. */
export function writeRedactedBlobs(blobs: readonly string[]): void {
  for (const blob of blobs) writeBlob(Buffer.from(blob, "utf8"));
}

/**
 * The same for artifacts: their rows' content, then blobs in this data folder no row holds (older
 * ones, or another machine's). Artifacts are content-addressed: a redacted one is stored under its
 * new hash (the blob first, durably), its row and every reference moved there, the old blob deleted.
 */
export async function redactStoredArtifacts(redactor: StoredTextRedactor): Promise<void> {
  const seen = new Set<string>();
  for (let after = ""; ; ) {
    const page = await read((tx) => tx.rows<[string, string]>("SELECT id, content FROM artifacts WHERE content IS NOT NULL AND id > ? ORDER BY id LIMIT ?", [after, PAGE_ROWS]));
    for (const [artifactId, text] of page) {
      seen.add(artifactId);
      await redactArtifact(artifactId, text, redactor);
    }
    if (page.length < PAGE_ROWS) break;
    after = page[page.length - 1][0];
  }
  const blobs = path.dirname(blobPath("0".repeat(64)));
  const names = fs.existsSync(blobs) ? fs.readdirSync(blobs).filter((name) => /^[0-9a-f]{64}$/.test(name) && !seen.has(name)) : [];
  for (const artifactId of names) await redactArtifact(artifactId, fs.readFileSync(path.join(blobs, artifactId), "utf8"), redactor);
}

async function redactArtifact(oldId: string, text: string, redactor: StoredTextRedactor): Promise<void> {
  const redacted = redactor(`artifact ${oldId}`, text, { document: "json" });
  if (redacted === null) return;
  // A bundle redacted value by value stays canonical JSON; anything else as redacted text.
  const stored = canonicalOrNull(redacted) ?? redacted;
  const bytes = Buffer.from(stored, "utf8");
  const newId = writeBlob(bytes);
  await write(async (tx) => {
    const taken = (await tx.get("SELECT id FROM artifacts WHERE id = ?", [newId])) !== undefined;
    if (taken) await tx.run("DELETE FROM artifacts WHERE id = ?", [oldId]);
    else await tx.run("UPDATE artifacts SET id = ?, content = ? WHERE id = ?", [newId, stored, oldId]);
    await tx.run("UPDATE handoff_sources SET artifact_id = ? WHERE artifact_id = ?", [newId, oldId]);
  });
  if (artifactIdOf(bytes) !== oldId) fs.rmSync(blobPath(oldId), { force: true });
}
