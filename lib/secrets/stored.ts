import "server-only";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { databaseFile, databaseUrl, dataDir } from "../config";
import { BUSY_TIMEOUT_MS, engineOf, read, write, type Tx } from "../database";
import { artifactIdOf, blobPath, writeBlob } from "../formats/artifact-store";
import { canonicalJson } from "../formats/canonical-json";
import { compactSearchIndexIn, keepSummaryFindableIn, keptSummariesIn } from "../search";
import { findSecrets, redactText, type SecretHit } from "./index";

/** One secret found in stored data: where it is and what kind, never the value. */
export type StoredFinding = { place: string; kind: string; line: number; column: number };
export type StoredScan = { findings: StoredFinding[]; byKind: Record<string, number>; cleaned: number };

/** Rows read at a time from the long tables (entries, artifacts), so memory stays flat. */
const PAGE_ROWS = 1000;
/** Tables whose text the scan rewrites: what PostgreSQL's VACUUM FULL rebuilds after a redaction. */
const REWRITTEN_TABLES = ["handoffs", "handoff_entries", "handoff_search_texts", "handoff_sources", "handoff_records", "artifacts"];

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

function canonicalOrNull(json: string): string | null {
  try {
    return canonicalJson(JSON.parse(json));
  } catch {
    return null;
  }
}

/** A bundle redacted value by value and kept canonical JSON; anything else as redacted text. */
const redactedArtifact = (text: string, hits: SecretHit[]) => canonicalOrNull(redactText(text, hits, { document: "json" })) ?? redactText(text, hits);

/**
 * Scans what was stored before secrets were scanned on the way in (or while BATON_SECRETS was
 * `off`): titles, entries, kept summaries, imported documents, shift documents (their rows and
 * their files on disk) and artifacts (their rows and their blobs on disk). With `redact`, each is
 * rewritten with `[redacted: <kind>]`: rows in place (in one transaction, so the change feed tells
 * open pages), shift documents on disk in place, and artifacts, being content-addressed, under
 * their new hash with every reference moved to it and the old blob deleted. Blobs live in each
 * machine's data folder: on a team server with several machines, run it on each.
 */
export async function scanStored(options: { redact: boolean }): Promise<StoredScan> {
  // The rows' findings are made afresh by each try of the transaction (PostgreSQL may run it again).
  const inRows = options.redact ? await write((tx) => scanRows(tx, true)) : await read((tx) => scanRows(tx, false));
  for (const blob of inRows.newBlobs) writeBlob(Buffer.from(blob, "utf8"));
  const { findings } = inRows;
  let { cleaned } = inRows;
  const note = (place: string, text: string, hits: SecretHit[]) => findings.push(...findingsOf(place, text, hits));

  const records = await read((tx) => tx.all<{ file_path: string }>("SELECT file_path FROM handoff_records WHERE file_path IS NOT NULL"));
  for (const { file_path } of records) {
    const absolute = path.join(dataDir(), file_path);
    let text: string;
    try {
      text = fs.readFileSync(absolute, "utf8");
    } catch {
      continue; // A document removed by hand, or written on another machine, has nothing here to scan.
    }
    const hits = findSecrets(text);
    if (hits.length === 0) continue;
    note(`shift document ${file_path}`, text, hits);
    if (!options.redact) continue;
    fs.writeFileSync(absolute, redactText(text, hits));
    cleaned += 1;
  }

  const found = await findArtifactSecrets();
  for (const { artifactId, text, hits } of found) {
    note(`artifact ${artifactId}`, text, hits);
    if (!options.redact) continue;
    await moveArtifact(artifactId, redactedArtifact(text, hits));
    cleaned += 1;
  }

  // Updated rows leave their old text in free pages (and the write-ahead log) until the tables are
  // rebuilt, and their old words in the search index until it is rewritten.
  if (options.redact && cleaned > 0) {
    await write(compactSearchIndexIn);
    await reclaimFreedSpace();
  }

  const byKind: Record<string, number> = {};
  for (const finding of findings) byKind[finding.kind] = (byKind[finding.kind] ?? 0) + 1;
  return { findings, byKind, cleaned };
}

type RowsScan = { findings: StoredFinding[]; cleaned: number; newBlobs: string[] };

const findingsOf = (place: string, text: string, hits: SecretHit[]): StoredFinding[] => hits.map((hit) => ({ place, kind: hit.kind, ...lineColumn(text, hit.start) }));

/**
 * The rows with text: titles, entries, kept summaries, imported documents, shift documents. With
 * `redact`, each is rewritten in the caller's write transaction; `newBlobs` are the canonical
 * forms of redacted imported bundles, for the artifact folder once the transaction committed.
 */
async function scanRows(tx: Tx, redact: boolean): Promise<RowsScan> {
  const scan: RowsScan = { findings: [], cleaned: 0, newBlobs: [] };
  /** Notes the hits; true when the place is to be rewritten. */
  const found = (place: string, text: string, hits: SecretHit[]) => {
    scan.findings.push(...findingsOf(place, text, hits));
    if (redact) scan.cleaned += 1;
    return redact;
  };
  const titles = await tx.all<{ id: string; title: string }>("SELECT id, title FROM handoffs");
  for (const { id, title } of titles) {
    const hits = findSecrets(title);
    if (hits.length > 0 && found(`title of ${id}`, title, hits)) await tx.run("UPDATE handoffs SET title = ? WHERE id = ?", [redactText(title, hits), id]);
  }
  for (let after = 0; ; ) {
    const page = await tx.rows<[number, string, string]>("SELECT seq, handoff_id, content FROM handoff_entries WHERE seq > ? ORDER BY seq LIMIT ?", [after, PAGE_ROWS]);
    for (const [seq, handoffId, content] of page) {
      const hits = findSecrets(content);
      if (hits.length > 0 && found(`entry #${seq} of ${handoffId}`, content, hits)) await tx.run("UPDATE handoff_entries SET content = ? WHERE seq = ?", [redactText(content, hits), seq]);
    }
    if (page.length < PAGE_ROWS) break;
    after = page[page.length - 1][0];
  }
  for (const { handoffId, summary } of await keptSummariesIn(tx)) {
    const hits = findSecrets(summary);
    if (hits.length > 0 && found(`kept summary of ${handoffId}`, summary, hits)) await keepSummaryFindableIn(tx, handoffId, redactText(summary, hits));
  }
  const sources = await tx.all<{ handoff_id: string; format: string; document: string; artifact_id: string | null }>("SELECT handoff_id, format, document, artifact_id FROM handoff_sources");
  for (const { handoff_id, format, document, artifact_id } of sources) {
    const hits = findSecrets(document);
    if (hits.length === 0 || !found(`imported document of ${handoff_id}`, document, hits)) continue;
    const redacted = redactText(document, hits, { document: format === "handoff_yaml" ? "yaml" : "json" });
    // An imported bundle's artifact is its document's canonical form (lib/formats): it moves with it.
    const canonical = format === "bundle" && artifact_id !== null ? canonicalOrNull(redacted) : null;
    if (canonical !== null) scan.newBlobs.push(canonical);
    const artifactId = canonical === null ? artifact_id : artifactIdOf(Buffer.from(canonical, "utf8"));
    await tx.run("UPDATE handoff_sources SET document = ?, artifact_id = ? WHERE handoff_id = ?", [redacted, artifactId, handoff_id]);
  }
  const documents = await tx.all<{ id: number; file_path: string | null; document: string }>("SELECT id, file_path, document FROM handoff_records WHERE document IS NOT NULL");
  for (const { id, file_path, document } of documents) {
    const hits = findSecrets(document);
    if (hits.length > 0 && found(`shift document ${file_path ?? `#${id}`} (in the database)`, document, hits)) {
      await tx.run("UPDATE handoff_records SET document = ? WHERE id = ?", [redactText(document, hits), id]);
    }
  }
  return scan;
}

type ArtifactSecret = { artifactId: string; text: string; hits: SecretHit[] };

/** Artifacts holding a secret: their rows' content, then blobs in this data folder no row holds (older ones, or another machine's). */
async function findArtifactSecrets(): Promise<ArtifactSecret[]> {
  const found: ArtifactSecret[] = [];
  const seen = new Set<string>();
  for (let after = ""; ; ) {
    const page = await read((tx) => tx.rows<[string, string]>("SELECT id, content FROM artifacts WHERE content IS NOT NULL AND id > ? ORDER BY id LIMIT ?", [after, PAGE_ROWS]));
    for (const [artifactId, text] of page) {
      seen.add(artifactId);
      const hits = findSecrets(text);
      if (hits.length > 0) found.push({ artifactId, text, hits });
    }
    if (page.length < PAGE_ROWS) break;
    after = page[page.length - 1][0];
  }
  const blobs = path.dirname(blobPath("0".repeat(64)));
  const names = fs.existsSync(blobs) ? fs.readdirSync(blobs).filter((name) => /^[0-9a-f]{64}$/.test(name) && !seen.has(name)) : [];
  for (const artifactId of names) {
    const text = fs.readFileSync(path.join(blobs, artifactId), "utf8");
    const hits = findSecrets(text);
    if (hits.length > 0) found.push({ artifactId, text, hits });
  }
  return found;
}

/**
 * Stores an artifact's redacted text under its new hash (the blob first, durably), moves its row
 * and every reference to it there, then deletes the old blob.
 */
async function moveArtifact(oldId: string, redacted: string): Promise<void> {
  const bytes = Buffer.from(redacted, "utf8");
  const newId = writeBlob(bytes);
  await write(async (tx) => {
    const taken = (await tx.get("SELECT id FROM artifacts WHERE id = ?", [newId])) !== undefined;
    if (taken) await tx.run("DELETE FROM artifacts WHERE id = ?", [oldId]);
    else await tx.run("UPDATE artifacts SET id = ?, content = ? WHERE id = ?", [newId, redacted, oldId]);
    await tx.run("UPDATE handoff_sources SET artifact_id = ? WHERE artifact_id = ?", [newId, oldId]);
  });
  if (artifactIdOf(bytes) !== oldId) fs.rmSync(blobPath(oldId), { force: true });
}

/**
 * Rebuilds the database's files without the old text, outside any transaction (neither engine
 * vacuums inside one), on a connection of its own. SQLite: VACUUM, then the write-ahead log
 * truncated. PostgreSQL: VACUUM FULL of the rewritten tables, which locks each while it is
 * rebuilt; its own write-ahead log keeps the old text until the server recycles the segments.
 */
async function reclaimFreedSpace(): Promise<void> {
  const url = databaseUrl();
  if (engineOf(url) === "sqlite") {
    const connection = new BetterSqlite3(databaseFile(url), { timeout: BUSY_TIMEOUT_MS });
    try {
      connection.exec("VACUUM");
      connection.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      connection.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query(`VACUUM FULL ${REWRITTEN_TABLES.join(", ")}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
