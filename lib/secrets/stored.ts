import "server-only";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";
import { artifactIdOf, blobPath, writeBlob } from "../formats/artifact-store";
import { canonicalJson } from "../formats/canonical-json";
import { compactSearchIndexIn, keepSummaryFindableIn, keptSummariesIn } from "../search";
import { read, sql, write, type Sql } from "../sqlite";
import { findSecrets, redactText, type SecretHit } from "./index";

/** One secret found in stored data: where it is and what kind, never the value. */
export type StoredFinding = { place: string; kind: string; line: number; column: number };
export type StoredScan = { findings: StoredFinding[]; byKind: Record<string, number>; cleaned: number };

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/**
 * Scans what was stored before secrets were scanned on the way in (or while BATON_SECRETS was
 * `off`): titles, entries, imported documents, shift documents on disk and artifact blobs. With
 * `redact`, each is rewritten with `[redacted: <kind>]`: rows in place (in one transaction, so
 * the change feed tells open pages), shift documents in place, and blobs, being content-addressed,
 * under their new hash with every reference moved to it and the old blob deleted.
 */
export function scanStored(options: { redact: boolean }): StoredScan {
  const findings: StoredFinding[] = [];
  let cleaned = 0;
  const note = (place: string, text: string, hits: SecretHit[]) => {
    for (const hit of hits) findings.push({ place, kind: hit.kind, ...lineColumn(text, hit.start) });
  };

  const rows = (tx: Sql) => {
    const titles = tx.statement("SELECT id, title FROM handoffs").all() as { id: string; title: string }[];
    for (const { id, title } of titles) {
      const hits = findSecrets(title);
      if (hits.length === 0) continue;
      note(`title of ${id}`, title, hits);
      if (!options.redact) continue;
      tx.statement("UPDATE handoffs SET title = ? WHERE id = ?").run(redactText(title, hits), id);
      cleaned += 1;
    }
    const entries = tx.statement("SELECT seq, handoff_id, content FROM handoff_entries").iterate() as Iterable<{ seq: number; handoff_id: string; content: string }>;
    const entryUpdates: [string, number][] = [];
    for (const { seq, handoff_id, content } of entries) {
      const hits = findSecrets(content);
      if (hits.length === 0) continue;
      note(`entry #${seq} of ${handoff_id}`, content, hits);
      entryUpdates.push([redactText(content, hits), seq]);
    }
    if (options.redact) {
      for (const [content, seq] of entryUpdates) tx.statement("UPDATE handoff_entries SET content = ? WHERE seq = ?").run(content, seq);
      cleaned += entryUpdates.length;
    }
    for (const { handoffId, summary } of keptSummariesIn(tx)) {
      const hits = findSecrets(summary);
      if (hits.length === 0) continue;
      note(`kept summary of ${handoffId}`, summary, hits);
      if (!options.redact) continue;
      keepSummaryFindableIn(tx, handoffId, redactText(summary, hits));
      cleaned += 1;
    }
    const sources = tx.statement("SELECT handoff_id, format, document FROM handoff_sources").all() as { handoff_id: string; format: string; document: string }[];
    for (const { handoff_id, format, document } of sources) {
      const hits = findSecrets(document);
      if (hits.length === 0) continue;
      note(`imported document of ${handoff_id}`, document, hits);
      if (options.redact) {
        tx.statement("UPDATE handoff_sources SET document = ? WHERE handoff_id = ?").run(redactText(document, hits, { document: format === "handoff_yaml" ? "yaml" : "json" }), handoff_id);
        cleaned += 1;
      }
    }
  };
  if (options.redact) write(rows);
  else read(rows);

  const records = read((tx) => tx.statement("SELECT file_path FROM handoff_records WHERE file_path IS NOT NULL").all() as { file_path: string }[]);
  for (const { file_path } of records) {
    const absolute = path.join(dataDir(), file_path);
    let text: string;
    try {
      text = fs.readFileSync(absolute, "utf8");
    } catch {
      continue; // A document removed by hand has nothing left to scan.
    }
    const hits = findSecrets(text);
    if (hits.length === 0) continue;
    note(`shift document ${file_path}`, text, hits);
    if (!options.redact) continue;
    fs.writeFileSync(absolute, redactText(text, hits));
    cleaned += 1;
  }

  const blobs = path.dirname(blobPath("0".repeat(64)));
  const names = fs.existsSync(blobs) ? fs.readdirSync(blobs).filter((name) => /^[0-9a-f]{64}$/.test(name)) : [];
  for (const oldId of names) {
    const text = fs.readFileSync(path.join(blobs, oldId), "utf8");
    const hits = findSecrets(text);
    if (hits.length === 0) continue;
    note(`artifact ${oldId}`, text, hits);
    if (!options.redact) continue;
    let bytes = redactText(text, hits);
    try {
      // Bundles are canonical JSON: redacted value by value and kept canonical.
      bytes = canonicalJson(JSON.parse(redactText(text, hits, { document: "json" })));
    } catch {
      // Not JSON: stored as redacted text.
    }
    const newId = writeBlob(Buffer.from(bytes, "utf8"));
    write((tx) => {
      const taken = tx.statement("SELECT 1 FROM artifacts WHERE id = ?").get(newId) !== undefined;
      if (taken) tx.statement("DELETE FROM artifacts WHERE id = ?").run(oldId);
      else tx.statement("UPDATE artifacts SET id = ? WHERE id = ?").run(newId, oldId);
      tx.statement("UPDATE handoff_sources SET artifact_id = ? WHERE artifact_id = ?").run(newId, oldId);
    });
    if (artifactIdOf(Buffer.from(bytes, "utf8")) !== oldId) fs.rmSync(path.join(blobs, oldId), { force: true });
    cleaned += 1;
  }

  // Updated rows leave their old text in free pages (and the WAL) until the file is rebuilt, and
  // their old words in the search index until it is rewritten.
  if (options.redact && cleaned > 0) {
    write(compactSearchIndexIn);
    const { connection } = sql();
    connection.exec("VACUUM");
    connection.pragma("wal_checkpoint(TRUNCATE)");
  }

  const byKind: Record<string, number> = {};
  for (const finding of findings) byKind[finding.kind] = (byKind[finding.kind] ?? 0) + 1;
  return { findings, byKind, cleaned };
}
