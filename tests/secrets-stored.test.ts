import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triggerHandoff, registerAgent } from "../lib/agents";
import { blobPath, readBlob } from "../lib/formats/blobs";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { exportHandoff } from "../lib/formats/export-handoff";
import { importDocument } from "../lib/formats/import-document";
import { createHandoff } from "../lib/handoffs";
import { closeDatabase, database, read } from "../lib/database";
import { everyRowAsText } from "./support/rows";
import { SECRET_SAMPLES, embed, embeddingOf, secretPartOf } from "./fixtures/secrets/corpus";

/**
 * `baton secrets scan [--redact]` on data stored while BATON_SECRETS was off: titles, entries,
 * an imported document, a bundle blob, an exported bundle kept only in the database (as one
 * exported on another machine of a team server is) and a shift document.
 */
const dataDir = process.env.BATON_DATA_DIR!;
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const needles = SECRET_SAMPLES.flatMap((sample) => secretPartOf(sample).split("\n").filter((line) => line.length >= 12 && !line.startsWith("-----")));
const textOf = (samples: typeof SECRET_SAMPLES) => samples.map((sample, i) => embed(sample, embeddingOf(i))).join("\n\n");

function baton(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { env: process.env, encoding: "utf8" });
}

function dataFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else files.push(path.join(dir, entry.name));
    }
  };
  walk(dataDir);
  return files;
}


/** Where a secret is left: files of the data folder, and on PostgreSQL the database's rows. */
async function secretsLeft(): Promise<string[]> {
  // Closing a file this process read drops every POSIX lock it held on that file (SQLite's own
  // caveat): its open connection would look unused, and another process's last close then
  // deletes the write-ahead log under it. Closed here; the next call opens it afresh.
  await closeDatabase();
  const places = dataFiles().map((file) => ({ place: path.relative(dataDir, file), text: fs.readFileSync(file).toString("latin1") }));
  if (database().engine === "postgres") places.push({ place: "the PostgreSQL database", text: await everyRowAsText() });
  return places.flatMap(({ place, text }) => needles.filter((needle) => text.includes(needle)).map(() => place));
}

describe("baton secrets scan", () => {
  let bundleHandoff: string;
  let oldArtifact: string;
  let exportedHandoff: string;
  let exportedArtifact: string;
  let entriesOnly: { id: string; updatedAt: string };
  beforeAll(async () => {
    process.env.BATON_SECRETS = "off";
    const plain = await createHandoff({ title: "Deploy notes", content: textOf(SECRET_SAMPLES.slice(0, 2)) });
    entriesOnly = { id: plain.handoff.id, updatedAt: plain.handoff.updatedAt };
    const created = await createHandoff({ title: `Keys ${SECRET_SAMPLES[7].value}`, content: textOf(SECRET_SAMPLES.slice(0, 18)) });
    exportedHandoff = created.handoff.id;
    exportedArtifact = (await exportHandoff({ id: exportedHandoff, format: "bundle" })).artifactId!;
    fs.rmSync(blobPath(exportedArtifact));
    const bundle = JSON.parse(EXAMPLE_DOCUMENTS.bundle.text);
    bundle.summary_markdown = textOf(SECRET_SAMPLES.slice(18));
    const imported = await importDocument({ text: JSON.stringify(bundle), fileName: `bundle-${SECRET_SAMPLES[7].value}.json` });
    bundleHandoff = imported.handoff.id;
    oldArtifact = imported.artifactId!;
    const agent = await registerAgent({ personaSlug: "developer", project: "secrets" });
    await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: textOf(SECRET_SAMPLES) });
    delete process.env.BATON_SECRETS;
  });
  afterAll(() => void delete process.env.BATON_SECRETS);

  it("reports what was stored before without the values, then --redact cleans every place", async () => {
    expect((await secretsLeft()).length).toBeGreaterThan(0);

    const report = baton(["secrets", "scan"]);
    expect(report.status).toBe(1);
    for (const place of ["title of hof_", "entry #", "imported document of hof_", "file name of the imported document of hof_", "shift document ", "(in the database)", `artifact ${exportedArtifact}`, `artifact ${oldArtifact}`]) {
      expect(report.stdout).toContain(place);
    }
    // An entry is named by its number in its thread (#1 first), as everywhere else: this thread's
    // only entry is #1, though another thread's entry was stored before it.
    expect(report.stdout).toContain(`entry #1 of ${exportedHandoff}\t`);
    expect(report.stdout).not.toMatch(new RegExp(`entry #[2-9]\\d* of ${exportedHandoff}`));
    expect(report.stderr).toMatch(/^\d+ secrets found \(.*github \d+.*\); run with --redact to clean them$/m);
    for (const needle of needles) expect(report.stdout + report.stderr).not.toContain(needle);

    const feedBefore = (await read((tx) => tx.get<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM changes")))!.seq ?? 0;
    const cleaned = baton(["secrets", "scan", "--redact"]);
    expect(cleaned.status, cleaned.stderr).toBe(0);
    expect(cleaned.stderr).toMatch(/redacted in \d+ places/);
    // Open pages and MCP subscriptions follow the change feed: a thread whose entries (or imported
    // document) alone were rewritten is in it too, its activity time unchanged.
    const told = await read((tx) => tx.all<{ handoff_id: string }>("SELECT handoff_id FROM changes WHERE seq > ? AND subject = 'handoff' AND action = 'updated'", [feedBefore]));
    expect(told.map((change) => change.handoff_id)).toEqual(expect.arrayContaining([entriesOnly.id, bundleHandoff, exportedHandoff]));
    const untouched = await read((tx) => tx.get<{ updated_at: string | Date }>("SELECT updated_at FROM handoffs WHERE id = ?", [entriesOnly.id]));
    expect(new Date(untouched!.updated_at).toISOString()).toBe(entriesOnly.updatedAt);

    const again = baton(["secrets", "scan"]);
    expect(again.status).toBe(0);
    expect(again.stderr).toBe("no secrets found\n");
    expect(await secretsLeft()).toEqual([]);

    // The bundle lives on under its new hash; its source row points there and the old blob is gone.
    const { artifact_id: newArtifact } = (await read((tx) => tx.get<{ artifact_id: string }>("SELECT artifact_id FROM handoff_sources WHERE handoff_id = ?", [bundleHandoff])))!;
    expect(newArtifact).not.toBe(oldArtifact);
    expect((await readBlob(newArtifact)).toString("utf8")).toContain("[redacted: ");
    await expect(readBlob(oldArtifact)).rejects.toThrow(/not found/);
    // The exported bundle's row moved to its redacted bytes' hash, readable from the database alone.
    const exported = (await read((tx) => tx.get<{ id: string; content: string }>("SELECT id, content FROM artifacts WHERE handoff_id = ? AND purpose = 'export'", [exportedHandoff])))!;
    expect(exported.id).not.toBe(exportedArtifact);
    expect(exported.content).toContain("[redacted: ");
    fs.rmSync(blobPath(exported.id), { force: true });
    expect((await readBlob(exported.id)).toString("utf8")).toBe(exported.content);
  }, 60_000);
});
