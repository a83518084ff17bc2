import "server-only";
import type { Tx } from "../database";
import type { StoredTextRedactor } from "../secrets/stored-redactor";

/** Rows read at a time from the entries, so memory stays flat on a long history. */
const PAGE_ROWS = 1000;

/** For the sweep of stored secrets (lib/jobs/secrets-sweep.ts): titles and entries, rewritten where `redactor` says, in the caller's transaction. */
export async function redactStoredHandoffTextsIn(tx: Tx, redactor: StoredTextRedactor): Promise<void> {
  for (const { id, title } of await tx.all<{ id: string; title: string }>("SELECT id, title FROM handoffs")) {
    const redacted = redactor(`title of ${id}`, title);
    if (redacted !== null) await tx.run("UPDATE handoffs SET title = ? WHERE id = ?", [redacted, id]);
  }
  for (let after = 0; ; ) {
    const page = await tx.rows<[number, string, string]>("SELECT seq, handoff_id, content FROM handoff_entries WHERE seq > ? ORDER BY seq LIMIT ?", [after, PAGE_ROWS]);
    for (const [seq, handoffId, content] of page) {
      const redacted = redactor(`entry #${seq} of ${handoffId}`, content);
      if (redacted !== null) await tx.run("UPDATE handoff_entries SET content = ? WHERE seq = ?", [redacted, seq]);
    }
    if (page.length < PAGE_ROWS) break;
    after = page[page.length - 1][0];
  }
}
