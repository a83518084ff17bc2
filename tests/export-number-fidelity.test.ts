import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";
import { runBaton } from "./support/baton-command";

/**
 * An exported handoff.json gives its source document back with every field (unknown keys too),
 * and a bundle's artifact is its canonical bytes: numbers as written, not as a double holds
 * them. JSON.parse reads 12345678901234567890 (a 64-bit id, a u64 seq) as 12345678901234567000,
 * and the export, the kept bundle and its artifact id said so.
 */
const api = apiServerForFile();

const BIG = ["12345678901234567890", "9007199254740993", "-18446744073709551615", "0.12345678901234567890123"];
const extra = `"pr_id": ${BIG[0]}, "ids": [${BIG[1]}, {"deep": ${BIG[2]}}], "ratio": ${BIG[3]}`;
const documents: [string, string, string][] = [
  // A field Baton reads, too: the schema checks the number a double holds, the export writes it as written.
  ["handoff_json", "json", EXAMPLE_DOCUMENTS.handoff_json.text.replace('"blockers": []', `"blockers": [], ${extra}`).replace('"progress_percent": 60', '"progress_percent": 60.000000000000000001')],
  ["bundle", "bundle", EXAMPLE_DOCUMENTS.bundle.text.replace('"schema":', `${extra}, "schema":`)],
];

const exportWithCli = (id: string, format: string) => run(process.cwd(), ["export", id, "--format", format]);

/** The real CLI in `cwd`; not spawnSync: the server above lives in this process and must go on answering. */
async function run(cwd: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runBaton(args, { cwd });
  return { status: code, stdout, stderr };
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

describe("integers past 2^53 in a handoff.yaml", () => {
  const yamlExtra = `pr_id: ${BIG[0]}\nids: [${BIG[1]}, 7]\nnested:\n  deep: ${BIG[2]}\n  small: 3\n`;

  it("come back as written in the export of an imported handoff.yaml", async () => {
    const text = `${EXAMPLE_DOCUMENTS.handoff_yaml.text}${yamlExtra}`;
    const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) });
    const imported = await answer.json();
    expect(answer.status, JSON.stringify(imported).slice(0, 300)).toBe(201);
    const exported = await exportWithCli(imported.handoff.id, "yaml");
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`pr_id: ${BIG[0]}`);
    expect(exported.stdout).toContain(`  - ${BIG[1]}\n  - 7\n`);
    expect(exported.stdout).toContain(`  deep: ${BIG[2]}\n  small: 3\n`);
  }, 60_000);

  it("stay as written in the project's file after baton checkpoint, and a huge status is refused by name", async () => {
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "baton-big-integers-")));
    try {
      fs.mkdirSync(path.join(project, ".flow-guardian"));
      const file = path.join(project, ".flow-guardian", "handoff.yaml");
      fs.writeFileSync(file, `${EXAMPLE_DOCUMENTS.handoff_yaml.text}${yamlExtra}`);
      const saved = await run(project, ["checkpoint", "--now", "Fixing the comparison"]);
      expect(saved.status, saved.stderr).toBe(0);
      const written = fs.readFileSync(file, "utf8");
      expect(written).toContain(`pr_id: ${BIG[0]}`);
      expect(written).toContain(`  deep: ${BIG[2]}\n  small: 3\n`);

      fs.writeFileSync(file, written.replace("status: in_progress", `status: ${BIG[0]}`));
      const refused = await run(project, ["checkpoint", "--now", "Again"]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(`status: must be one of in_progress, completed, blocked (got ${BIG[0]})`);
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);
});
