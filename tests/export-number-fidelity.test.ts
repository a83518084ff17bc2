import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";

/**
 * An exported handoff.json gives its source document back with every field (unknown keys too),
 * and a bundle's artifact is its canonical bytes: numbers as written, not as a double holds
 * them. JSON.parse reads 12345678901234567890 (a 64-bit id, a u64 seq) as 12345678901234567000,
 * and the export, the kept bundle and its artifact id said so.
 */
const api = apiServerForFile();
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");

const BIG = ["12345678901234567890", "9007199254740993", "-18446744073709551615", "0.12345678901234567890123"];
const extra = `"pr_id": ${BIG[0]}, "ids": [${BIG[1]}, {"deep": ${BIG[2]}}], "ratio": ${BIG[3]}`;
const documents: [string, string, string][] = [
  // A field Baton reads, too: the schema checks the number a double holds, the export writes it as written.
  ["handoff_json", "json", EXAMPLE_DOCUMENTS.handoff_json.text.replace('"blockers": []', `"blockers": [], ${extra}`).replace('"progress_percent": 60', '"progress_percent": 60.000000000000000001')],
  ["bundle", "bundle", EXAMPLE_DOCUMENTS.bundle.text.replace('"schema":', `${extra}, "schema":`)],
];

function exportWithCli(id: string, format: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "export", id, "--format", format], { env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("numbers past a double's precision in an imported document", () => {
  it.each(documents)("%s: come back as written in the export and the stored bundle", async (format, flag, text) => {
    const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) });
    const imported = await answer.json();
    expect(answer.status, JSON.stringify(imported).slice(0, 300)).toBe(201);
    expect(imported.format).toBe(format);

    const exported = await exportWithCli(imported.handoff.id, flag);
    expect(exported.status, exported.stderr).toBe(0);
    for (const number of BIG) expect(exported.stdout).toContain(number);
    if (format === "handoff_json") expect(exported.stdout).toContain('"progress_percent": 60.000000000000000001');

    if (format === "bundle") {
      expect(exported.stderr).toContain(`artifact ${imported.artifactId}`);
      const stored = await (await api.fetch(`/api/artifacts/${imported.artifactId}`)).text();
      for (const number of BIG) expect(stored).toContain(number);
    }
  }, 60_000);
});
