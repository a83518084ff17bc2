import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triggerHandoff, registerAgent } from "../lib/agents";
import { readBlob } from "../lib/formats/artifact-store";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { importDocument } from "../lib/formats/import-document";
import { createHandoff } from "../lib/handoffs";
import { sql } from "../lib/sqlite";
import { SECRET_SAMPLES, embed, embeddingOf, secretPartOf } from "./fixtures/secrets/corpus";

/**
 * `baton secrets scan [--redact]` on data stored while BATON_SECRETS was off: titles, entries,
 * an imported document, a bundle blob and a shift document.
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

function secretsIn(files: string[]): string[] {
  sql().statement("PRAGMA wal_checkpoint(TRUNCATE)").run();
  return files.flatMap((file) => {
    const bytes = fs.readFileSync(file).toString("latin1");
    return needles.filter((needle) => bytes.includes(needle)).map(() => path.relative(dataDir, file));
  });
}

describe("baton secrets scan", () => {
  let bundleHandoff: string;
  let oldArtifact: string;
  beforeAll(async () => {
    process.env.BATON_SECRETS = "off";
    await createHandoff({ title: `Keys ${SECRET_SAMPLES[7].value}`, content: textOf(SECRET_SAMPLES.slice(0, 18)) });
    const bundle = JSON.parse(EXAMPLE_DOCUMENTS.bundle.text);
    bundle.summary_markdown = textOf(SECRET_SAMPLES.slice(18));
    const imported = await importDocument({ text: JSON.stringify(bundle) });
    bundleHandoff = imported.handoff.id;
    oldArtifact = imported.artifactId!;
    const agent = await registerAgent({ personaSlug: "developer", project: "secrets" });
    await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: textOf(SECRET_SAMPLES) });
    delete process.env.BATON_SECRETS;
  });
  afterAll(() => void delete process.env.BATON_SECRETS);

  it("reports what was stored before without the values, then --redact cleans every place", () => {
    expect(secretsIn(dataFiles()).length).toBeGreaterThan(0);

    const report = baton(["secrets", "scan"]);
    expect(report.status).toBe(1);
    for (const place of ["title of hof_", "entry #", "imported document of hof_", "shift document ", "artifact "]) expect(report.stdout).toContain(place);
    expect(report.stderr).toMatch(/^\d+ secrets found \(.*github \d+.*\); run with --redact to clean them$/m);
    for (const needle of needles) expect(report.stdout + report.stderr).not.toContain(needle);

    const cleaned = baton(["secrets", "scan", "--redact"]);
    expect(cleaned.status, cleaned.stderr).toBe(0);
    expect(cleaned.stderr).toMatch(/redacted in \d+ places/);

    const again = baton(["secrets", "scan"]);
    expect(again.status).toBe(0);
    expect(again.stderr).toBe("no secrets found\n");
    expect(secretsIn(dataFiles())).toEqual([]);

    // The bundle lives on under its new hash; its source row points there and the old blob is gone.
    const { artifact_id: newArtifact } = sql().statement("SELECT artifact_id FROM handoff_sources WHERE handoff_id = ?").get(bundleHandoff) as { artifact_id: string };
    expect(newArtifact).not.toBe(oldArtifact);
    expect(readBlob(newArtifact).toString("utf8")).toContain("[redacted: ");
    expect(() => readBlob(oldArtifact)).toThrow(/not found/);
  }, 60_000);
});
