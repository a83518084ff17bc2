import "server-only";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";
import { read, type Tx } from "../database";
import type { StoredTextRedactor } from "../secrets/stored-redactor";

/** For the sweep of stored secrets (lib/jobs/secrets-sweep.ts): shift documents kept in their records, rewritten where `redactor` says, in the caller's transaction. */
export async function redactStoredShiftDocumentsIn(tx: Tx, redactor: StoredTextRedactor): Promise<void> {
  const documents = await tx.all<{ id: number; file_path: string | null; document: string }>("SELECT id, file_path, document FROM handoff_records WHERE document IS NOT NULL");
  for (const { id, file_path, document } of documents) {
    const redacted = redactor(`shift document ${file_path ?? `#${id}`} (in the database)`, document);
    if (redacted !== null) await tx.run("UPDATE handoff_records SET document = ? WHERE id = ?", [redacted, id]);
  }
}

/** The same for shift documents' files in this machine's data folder (a file removed by hand, or written on another machine, is skipped). */
export async function redactShiftDocumentFiles(redactor: StoredTextRedactor): Promise<void> {
  const records = await read((tx) => tx.all<{ file_path: string }>("SELECT file_path FROM handoff_records WHERE file_path IS NOT NULL"));
  for (const { file_path } of records) {
    const absolute = path.join(dataDir(), file_path);
    let text: string;
    try {
      text = fs.readFileSync(absolute, "utf8");
    } catch {
      continue;
    }
    const redacted = redactor(`shift document ${file_path}`, text);
    if (redacted !== null) fs.writeFileSync(absolute, redacted);
  }
}
