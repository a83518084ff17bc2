import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS, importDocument, MAX_IMPORT_BYTES } from "../lib/formats";
import { addEntry, createHandoff } from "../lib/handoffs";
import { runBaton } from "./support/baton-command";

/**
 * What Baton exports it can import again: a handoff.json within the import's limits (1 MiB, 200
 * items a list), however long the thread. Such exports used to fail as Baton's own error ("Baton
 * built a handoff.json it would refuse"). Run as users run it: `baton export`, then the export
 * imported back with `baton import -`.
 */

/** `baton export <id> --format json`, checked to be importable again; the document it wrote. */
async function exportedJson(id: string): Promise<{ text: string; doc: Record<string, unknown> & { context_learned: string[]; blockers: string[]; work_in_progress: { next_steps: string[] } } }> {
  const exported = await runBaton(["export", id, "--format", "json"]);
  expect(exported.code, exported.stderr).toBe(0);
  expect(Buffer.byteLength(exported.stdout, "utf8")).toBeLessThanOrEqual(MAX_IMPORT_BYTES);
  const again = await runBaton(["import", "-"], { input: exported.stdout });
  expect(again.code, again.stderr).toBe(0);
  return { text: exported.stdout, doc: JSON.parse(exported.stdout) };
}

const fact = (index: number) => `Fact ${index}: ${"x".repeat(60_000)}`;

describe("a handoff.json export stays within what an import takes", () => {
  it("a long thread keeps its newest facts and steps, its instruction and open questions, and a last step cut to fit", async () => {
    const { handoff } = await createHandoff({ title: "Long research thread", content: fact(0) });
    for (let index = 1; index < 24; index++) await addEntry({ id: handoff.id, type: "context", content: fact(index), asClient: "chat" });
    for (let index = 0; index < 20; index++) await addEntry({ id: handoff.id, type: "task", content: `Task ${index}: ${"t".repeat(60_000)}`, asClient: "chat" });
    await addEntry({ id: handoff.id, type: "progress", content: `Done: ${"p".repeat(65_500)}`, asClient: "code" });
    await addEntry({ id: handoff.id, type: "question", content: "Which cache do we keep?", asClient: "code" });
    await addEntry({ id: handoff.id, type: "task", content: "Write the cache layer", asClient: "chat" });
    const { doc } = await exportedJson(handoff.id);
    // Learned facts become one entry on import: the newest that fit in it.
    expect(doc.context_learned).toEqual([fact(23)]);
    // Twenty steps of 60 KB pass 1 MiB: the oldest go.
    const steps = doc.work_in_progress.next_steps;
    expect(steps.at(-1)).toMatch(/^Task 19: /);
    expect(steps.length).toBeGreaterThan(5);
    expect(steps.length).toBeLessThan(20);
    expect(doc.work_in_progress).toMatchObject({ last_completed_step: expect.stringMatching(/^Done: p+…$/) });
    expect(doc.blockers).toEqual(["Which cache do we keep?"]);
    expect(doc.handoff_instruction).toBe("Write the cache layer");
  }, 60_000);

  it("an imported handoff.json with 200 next steps and a task added in Baton keeps the newest 200", async () => {
    const seed = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    const steps = Array.from({ length: 200 }, (_, index) => `Step ${index}`);
    const imported = await importDocument({ text: JSON.stringify({ ...seed, work_in_progress: { ...seed.work_in_progress, next_steps: steps } }) });
    await addEntry({ id: imported.handoff.id, type: "task", content: "One more step", asClient: "chat" });
    const { doc } = await exportedJson(imported.handoff.id);
    expect(doc.work_in_progress.next_steps).toEqual([...steps.slice(1), "One more step"]);
  }, 60_000);

  it("an imported compact handoff.json that would pass 1 MiB indented comes back whole, compact", async () => {
    const seed = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    const original = { ...seed, readings: Array.from({ length: 250_000 }, () => 1) };
    const imported = await importDocument({ text: JSON.stringify(original) });
    const { text, doc } = await exportedJson(imported.handoff.id);
    expect(doc).toEqual(original);
    expect(text).toBe(`${JSON.stringify(original)}\n`);
  }, 60_000);
});

describe("a handoff.yaml export stays within what an import takes", () => {
  it("a done entry near 64 KiB becomes an outcome cut to fit its entry, native or imported", async () => {
    const done = `Shipped: ${"d".repeat(65_520)}`;
    const { handoff } = await createHandoff({ title: "Ship the release", content: "Cut the branch" });
    await addEntry({ id: handoff.id, type: "done", content: done, asClient: "code" });
    const imported = await importDocument({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, fileName: "handoff.yaml" });
    await addEntry({ id: imported.handoff.id, type: "done", content: done, asClient: "code" });
    for (const id of [handoff.id, imported.handoff.id]) {
      const exported = await runBaton(["export", id, "--format", "yaml"]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toMatch(/^outcome: "Shipped: d+…"$/m);
      const again = await runBaton(["import", "-"], { input: exported.stdout });
      expect(again.code, again.stderr).toBe(0);
    }
  }, 60_000);
});

describe("a document imported at the 1 MiB limit", () => {
  it("exports as a bundle; as a handoff.yaml past 1 MiB once written again, it is refused naming the format, not failed", async () => {
    const head = `${EXAMPLE_DOCUMENTS.handoff_yaml.text.trimEnd()}\nnotes: `;
    const text = `${head}${"x".repeat(MAX_IMPORT_BYTES - Buffer.byteLength(head, "utf8") - 1)}\n`;
    expect(Buffer.byteLength(text, "utf8")).toBe(MAX_IMPORT_BYTES);
    const imported = await importDocument({ text, fileName: "handoff.yaml" });
    await addEntry({ id: imported.handoff.id, type: "progress", content: `Next: ${"y".repeat(400)}`, asClient: "code" });
    const yaml = await runBaton(["export", imported.handoff.id, "--format", "yaml"]);
    expect(yaml.code).toBe(1);
    expect(yaml.stderr).toContain("format: makes a document larger than 1 MiB; use bundle");
    expect(yaml.stderr).not.toContain("unexpected error");
    const bundle = await runBaton(["export", imported.handoff.id, "--format", "bundle"]);
    expect(bundle.code, bundle.stderr).toBe(0);
  }, 60_000);
});

describe("an imported handoff.yaml once its thread is closed", () => {
  it("exports with status completed, as any closed thread's handoff.yaml does", async () => {
    const imported = await importDocument({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, fileName: "handoff.yaml" });
    expect(EXAMPLE_DOCUMENTS.handoff_yaml.text).toMatch(/^status: in_progress/m);
    const closed = await runBaton(["close", imported.handoff.id]);
    expect(closed.code, closed.stderr).toBe(0);
    const exported = await runBaton(["export", imported.handoff.id, "--format", "yaml"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^status: completed$/m);
    expect(exported.stdout).toMatch(/^goal: Implement user authentication with JWT$/m);
  }, 60_000);
});
