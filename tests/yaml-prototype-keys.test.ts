import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";

/**
 * A handoff.yaml keeps keys Baton does not know, as flow-guardian's loader does: an export gives
 * them back and a checkpoint leaves them in the project's file. Keys that are also names of
 * Object.prototype's members (`constructor`, `toString`, `__proto__`) were dropped from both: the
 * writer asked `key in ordered`, true for every inherited name.
 */
const api = apiServerForFile();
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
});

const EXTRA = "constructor: kept by the team\ntoString: also kept\n__proto__:\n  owner: team-a\nvalueOf: 3\n";
const EXPECTED_EXTRA: [string, unknown][] = [
  ["constructor", "kept by the team"],
  ["toString", "also kept"],
  ["__proto__", { owner: "team-a" }],
  ["valueOf", 3],
];

function baton(cwd: string, args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, env: process.env, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Top-level keys and values as written, without a JavaScript object's inherited names in the way. */
function mappingOf(text: string): Map<string, unknown> {
  const value = parseDocument(text).toJS({ mapAsMap: true }) as Map<string, unknown>;
  return new Map([...value].map(([key, item]) => [key, item instanceof Map ? Object.fromEntries(item) : item]));
}

function expectExtraKeys(text: string) {
  const mapping = mappingOf(text);
  for (const [key, value] of EXPECTED_EXTRA) expect(mapping.get(key), `${key} in\n${text}`).toEqual(value);
}

describe("handoff.yaml keys named like Object.prototype's members", () => {
  it("come back in the export of an imported handoff.yaml", async () => {
    const text = `${EXAMPLE_DOCUMENTS.handoff_yaml.text}${EXTRA}`;
    const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) });
    const imported = await answer.json();
    expect(answer.status, JSON.stringify(imported).slice(0, 300)).toBe(201);
    const exported = baton(process.cwd(), ["export", imported.handoff.id, "--format", "yaml"]);
    expect(exported.status, exported.stderr).toBe(0);
    expectExtraKeys(exported.stdout);
  }, 60_000);

  it("stay in the project's handoff.yaml after baton checkpoint", () => {
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "baton-proto-keys-")));
    temporary.push(project);
    fs.mkdirSync(path.join(project, ".flow-guardian"));
    const file = path.join(project, ".flow-guardian", "handoff.yaml");
    fs.writeFileSync(file, `${EXAMPLE_DOCUMENTS.handoff_yaml.text}${EXTRA}`);
    const saved = baton(project, ["checkpoint", "--now", "Fixing the comparison"]);
    expect(saved.status, saved.stderr).toBe(0);
    const written = fs.readFileSync(file, "utf8");
    expect(mappingOf(written).get("now")).toBe("Fixing the comparison");
    expectExtraKeys(written);
  }, 60_000);
});
