import "server-only";
import { redactShiftDocumentFiles, redactStoredShiftDocumentsIn } from "../agents/redact-stored";
import { read, vacuum, write, type Tx } from "../database";
import { redactImportedDocumentsIn, redactStoredArtifacts, writeRedactedBlobs } from "../formats/redact-stored";
import { noteThreadsRewrittenIn, redactStoredHandoffTextsIn } from "../handoffs/store";
import { compactSearchIndexIn, redactKeptSummariesIn } from "../search";
import { storedTextRedactor, type StoredFinding, type StoredTextRedactor } from "../secrets/stored-redactor";
import { redactStoredDeliveriesIn } from "../webhooks";

/**
 * The sweep of stored secrets (`baton secrets scan [--redact]`): a job above the table owners, as
 * Gitea's doctor sits above its models. It owns no table: it hands each owner the redactor of
 * lib/secrets and the owner rewrites its own rows (lib/handoffs, lib/search, lib/formats,
 * lib/agents), then asks lib/database to rebuild the files without the old text.
 */
export type StoredScan = { findings: StoredFinding[]; byKind: Record<string, number>; cleaned: number };

/** Tables the sweep's owners rewrite: what PostgreSQL's VACUUM FULL rebuilds after a redaction. */
const REWRITTEN_TABLES = ["handoffs", "handoff_entries", "handoff_search_texts", "handoff_sources", "handoff_records", "artifacts", "webhook_deliveries"];

async function rowsIn(tx: Tx, redactor: StoredTextRedactor): Promise<string[]> {
  await redactStoredHandoffTextsIn(tx, redactor);
  const summaries = await redactKeptSummariesIn(tx, redactor);
  const documents = await redactImportedDocumentsIn(tx, redactor);
  // Rows of other owners that a thread's page shows; a shift document's update is in the feed already.
  await noteThreadsRewrittenIn(tx, [...summaries, ...documents.rewritten]);
  await redactStoredShiftDocumentsIn(tx, redactor);
  await redactStoredDeliveriesIn(tx, redactor);
  return documents.newBlobs;
}

/**
 * Scans what was stored before secrets were scanned on the way in (or while BATON_SECRETS was
 * `off`): titles, entries, kept summaries, imported documents, shift documents (their rows and
 * their files on disk), webhook deliveries' payloads and artifacts (their rows and their blobs on disk). With `redact`, each is
 * rewritten with `[redacted: <kind>]`: rows in one transaction (so the change feed tells open
 * pages), files in place, artifacts under their new hash. Blobs and shift documents live in each
 * machine's data folder: on a team server with several machines, run it on each.
 */
export async function scanStored(options: { redact: boolean }): Promise<StoredScan> {
  // The rows' findings are made afresh by each try of the transaction (PostgreSQL may run it again).
  let sweep = storedTextRedactor(options.redact);
  const newBlobs = options.redact
    ? await write((tx) => {
        sweep = storedTextRedactor(true);
        return rowsIn(tx, sweep.redactor);
      })
    : await read((tx) => rowsIn(tx, sweep.redactor));
  writeRedactedBlobs(newBlobs);
  await redactShiftDocumentFiles(sweep.redactor);
  await redactStoredArtifacts(sweep.redactor);

  // Updated rows leave their old text in free pages (and the write-ahead log) until the tables are
  // rebuilt, and their old words in the search index until it is rewritten.
  const cleaned = sweep.cleaned();
  if (options.redact && cleaned > 0) {
    await write(compactSearchIndexIn);
    await vacuum(REWRITTEN_TABLES);
  }
  const byKind: Record<string, number> = {};
  for (const finding of sweep.findings) byKind[finding.kind] = (byKind[finding.kind] ?? 0) + 1;
  return { findings: sweep.findings, byKind, cleaned };
}
