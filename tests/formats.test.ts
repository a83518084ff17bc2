import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it, vi } from "vitest";
import { dataDir } from "../lib/config";
import { read, write } from "../lib/database";
import { Invalid } from "../lib/errors";
import { blobPath, canonicalJson, closeHandoff, detectFormat, EXAMPLE_DOCUMENTS, exportHandoff, getProvenance, importDocument, lastCheckpointOf, mergeHandoffYaml, previewImport, pushCheckpoint, readBlob, validateHandoffYaml } from "../lib/formats";
import { addEntry, createHandoff, getHandoff } from "../lib/handoffs";
import { rejectionOf } from "./support/rejection";

async function nativeThread(title = "Implement auth") {
  const { handoff } = await createHandoff({ title, content: "We decided on **JWT** with refresh tokens.", project: "hlg" });
  await addEntry({ id: handoff.id, type: "task", content: "Add the refresh endpoint in `src/auth.ts`", asClient: "chat" });
  await addEntry({ id: handoff.id, type: "question", content: "Should refresh tokens expire after 7d or 30d?", asClient: "code" });
  await addEntry({ id: handoff.id, type: "decision", content: "30 days, plus a remember-me option.", asClient: "chat" });
  await addEntry({ id: handoff.id, type: "progress", content: "Endpoint done, 50% of the story.", asClient: "code" });
  await addEntry({ id: handoff.id, type: "question", content: "Where should the remember-me flag live?", asClient: "code" });
  return (await getHandoff({ id: handoff.id })).entries.at(-1)!.handoffId;
}

function counts() {
  return read((tx) =>
    tx.get<{ handoffs: number; entries: number; sources: number }>(
      "SELECT (SELECT COUNT(*) FROM handoffs) AS handoffs, (SELECT COUNT(*) FROM handoff_entries) AS entries, (SELECT COUNT(*) FROM handoff_sources) AS sources",
    ),
  );
}

type StoredArtifact = { handoff_id: string | null; cut_seq: number | null; purpose: string; content: string | null };
const storedArtifact = (artifactId: string) =>
  read((tx) => tx.get<StoredArtifact>("SELECT handoff_id, cut_seq, purpose, content FROM artifacts WHERE id = ?", [artifactId]));

const invalidOf = (promise: Promise<unknown>) => rejectionOf(promise, Invalid);

describe("the seeds' example documents", () => {
  it("seed 001's bundle imports as a child and exports back to the same bundle", async () => {
    const { text } = EXAMPLE_DOCUMENTS.bundle;
    const imported = await importDocument({ text, fileName: "bundle.json" });
    expect(imported.format).toBe("bundle");
    expect(imported.entries).toHaveLength(1);
    expect(imported.entries[0]).toMatchObject({ type: "context", content: "### Summary\n- …\n" });
    // The parent is another system's thread: recorded, not linked.
    expect(imported.parentId).toBeNull();
    const provenance = await getProvenance({ id: imported.handoff.id });
    expect(provenance.source).toMatchObject({ format: "bundle", parentThreadId: "11111111-1111-1111-1111-111111111111", parentSeq: 42 });
    expect(provenance.source?.artifactId).toBe(createHash("sha256").update(canonicalJson(JSON.parse(text))).digest("hex"));

    const exported = await exportHandoff({ id: imported.handoff.id, format: "bundle" });
    expect(JSON.parse(exported.text)).toEqual(JSON.parse(text));
    expect(exported.text).toBe(canonicalJson(JSON.parse(text)));
    expect(exported.artifactId).toBe(provenance.source?.artifactId);
  });

  it("seed 002's handoff.json imports with the documented mapping and round-trips every field", async () => {
    const original = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    const withExtra = { ...original, loop_iteration: 7, current_story: { ...original.current_story, epic: "E8" } };
    const imported = await importDocument({ text: JSON.stringify(withExtra), fileName: "handoff.json" });
    expect(imported.format).toBe("handoff_json");
    const types = imported.entries.map((entry) => entry.type);
    expect(types).toEqual(["context", "context", "progress", "task", "task", "task"]);
    expect(imported.entries[0].content).toContain("context_threshold");
    expect(imported.entries[0].content).toContain("US-042");
    expect(imported.entries[2].content).toContain("Priority dropdown UI renders");
    expect(imported.entries[2].content).toContain("60%");
    expect(imported.entries[3].content).toBe(original.handoff_instruction);
    expect(imported.entries[4].content).toBe(original.work_in_progress.next_steps[0]);
    expect(imported.handoff.title).toBe("US-042: Edit task priority from the task card");
    expect(imported.warnings).toEqual([]);

    const exported = await exportHandoff({ id: imported.handoff.id, format: "json" });
    expect(JSON.parse(exported.text)).toEqual(withExtra);
  });

  it("seed 003's handoff.yaml imports with its metadata and exports YAML the seed's loader accepts", async () => {
    const { text } = EXAMPLE_DOCUMENTS.handoff_yaml;
    const imported = await importDocument({ text, fileName: "handoff.yaml" });
    expect(imported.format).toBe("handoff_yaml");
    expect(imported.entries.map((entry) => [entry.type, entry.content])).toEqual([
      ["context", "**Goal:** Implement user authentication with JWT"],
      ["context", "**Now:** Debugging token expiry in auth.py"],
      ["progress", "**Hypothesis:** Off-by-one error in timestamp comparison"],
    ]);
    const provenance = await getProvenance({ id: imported.handoff.id });
    expect(provenance.source?.metadata).toMatchObject({
      branch: "fix/jwt-expiry",
      files: ["src/auth.py", "tests/test_auth.py"],
      sessionId: "abc123",
      documentTimestamp: "2026-01-17T10:30:00Z",
    });
    expect(provenance.source?.fileName).toBe("handoff.yaml");

    const exported = await exportHandoff({ id: imported.handoff.id, format: "yaml" });
    const reloaded = parseYaml(exported.text) as Record<string, unknown>;
    expect(reloaded).toEqual(parseYaml(text));
    // The seed's save validation: goal and now non-empty strings, status in the enum, a timestamp.
    expect(typeof reloaded.goal === "string" && reloaded.goal.length > 0).toBe(true);
    expect(["in_progress", "completed", "blocked"]).toContain(reloaded.status);
    expect(typeof reloaded.now === "string" && reloaded.now.length > 0).toBe(true);
    expect(reloaded.timestamp).toBeTruthy();
  });

  it("a native thread exports to every format and each export imports again and exports back the same", async () => {
    const id = await nativeThread();
    for (const format of ["bundle", "json", "yaml"] as const) {
      const first = await exportHandoff({ id, format });
      const imported = await importDocument({ text: first.text, fileName: first.fileName });
      const second = await exportHandoff({ id: imported.handoff.id, format });
      if (format === "yaml") expect(parseYaml(second.text)).toEqual(parseYaml(first.text));
      else expect(JSON.parse(second.text)).toEqual(JSON.parse(first.text));
    }
  });
});

describe("exports of imported threads that moved on in Baton", () => {
  it("handoff.json keeps every original field and folds in the new tasks, questions and progress", async () => {
    const original = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    const imported = await importDocument({ text: EXAMPLE_DOCUMENTS.handoff_json.text });
    const id = imported.handoff.id;
    await addEntry({ id, type: "progress", content: "Save handler wired, 80% done", asClient: "code" });
    await addEntry({ id, type: "task", content: "Add a test for updatePriority", asClient: "chat" });
    const { entry } = await addEntry({ id, type: "question", content: "Should priority changes be audited?", asClient: "code" });
    const exported = JSON.parse((await exportHandoff({ id, format: "json" })).text);
    expect(exported).toEqual({
      ...original,
      timestamp: entry.createdAt,
      current_story: { ...original.current_story, progress_percent: 80 },
      work_in_progress: {
        ...original.work_in_progress,
        last_completed_step: "Save handler wired, 80% done",
        next_steps: [...original.work_in_progress.next_steps, "Add a test for updatePriority"],
      },
      blockers: ["Should priority changes be audited?"],
    });
  });

  it("handoff.yaml moves now, status and outcome forward and refreshes the timestamp", async () => {
    const imported = await importDocument({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text });
    const { entry } = await addEntry({ id: imported.handoff.id, type: "done", content: "Expiry fixed: compare with <=", asClient: "code" });
    const exported = parseYaml((await exportHandoff({ id: imported.handoff.id, format: "yaml" })).text);
    expect(exported).toEqual({
      ...parseYaml(EXAMPLE_DOCUMENTS.handoff_yaml.text),
      now: "Expiry fixed: compare with <=",
      status: "completed",
      outcome: "Expiry fixed: compare with <=",
      timestamp: entry.createdAt,
    });
  });
});

describe("titles taken from a document's first line", () => {
  // A counterexample fast-check found (tests/formats-properties.test.ts): a goal of heading marks
  // alone lost them all and the import was refused with "title must not be empty".
  it("skip a first line that shows nothing; a goal of nothing that shows is refused", async () => {
    const doc = (goal: string) => JSON.stringify({ goal, status: "in_progress", now: "!", timestamp: "2000-01-01T00:00:00.000Z" });
    const imported = await importDocument({ text: doc("\u200b\u2060\nShip the importer"), fileName: "handoff.yaml" });
    expect(imported.handoff.title).toBe("Ship the importer");
    await expect(importDocument({ text: doc("\u200b\n\u3164"), fileName: "handoff.yaml" })).rejects.toThrow(/goal: must not be empty \(characters that print nothing/);
  });

  it("keep a line of heading marks alone, drop the marks before words, and round-trip", async () => {
    for (const [goal, title] of [["#", "#"], ["## ", "##"], ["# Fix the login", "Fix the login"], ["###\nthen words", "###"]]) {
      const doc = { goal, status: "in_progress", now: "!", timestamp: "2000-01-01T00:00:00.000Z" };
      const imported = await importDocument({ text: JSON.stringify(doc), fileName: "handoff.yaml" });
      expect(imported.handoff.title, JSON.stringify(goal)).toBe(title);
    }
    const doc = { goal: "#", status: "in_progress", now: "!", timestamp: "2000-01-01T00:00:00.000Z" };
    const imported = await importDocument({ text: JSON.stringify(doc), fileName: "handoff.yaml" });
    expect(parseYaml((await exportHandoff({ id: imported.handoff.id, format: "yaml" })).text)).toEqual(doc);
  });
});

describe("a bundle's title", () => {
  it("is its summary's first heading with words, never words from a line after bare marks", async () => {
    const base = JSON.parse(EXAMPLE_DOCUMENTS.bundle.text);
    const cases: [string, string][] = [
      ["### Summary\n- …", "Summary"],
      ["#\n\nrest of the summary", "Context bundle from"],
      ["# \n   \n## Found later", "Found later"],
      ["notes first\n  # Indented heading", "Indented heading"],
      ["plain text only\n#", "Context bundle from"],
    ];
    for (const [summary, title] of cases) {
      const imported = await importDocument({ text: JSON.stringify({ ...base, summary_markdown: summary }), fileName: "bundle.json" });
      expect(imported.handoff.title, JSON.stringify(summary)).toContain(title);
    }
  });
});

describe("bundle export", () => {
  it("summarises the cut with the latest decision and open questions first and names the source cut", async () => {
    const id = await nativeThread();
    const { entries } = await getHandoff({ id });
    const exported = await exportHandoff({ id, format: "bundle" });
    const bundle = JSON.parse(exported.text);
    expect(bundle.schema).toBe("rip.handoff_context_bundle.v1");
    expect(bundle.refs.threads).toEqual([{ thread_id: id, seq: entries.at(-1)!.seq, message_id: null, note: "source cut" }]);
    const summary: string = bundle.summary_markdown;
    expect(summary.indexOf("### Latest decision")).toBeLessThan(summary.indexOf("### Open questions"));
    expect(summary.indexOf("### Open questions")).toBeLessThan(summary.indexOf("### Tasks"));
    expect(summary).toContain("30 days, plus a remember-me option.");
    // Only the question asked after the latest decision is open.
    const open = summary.slice(summary.indexOf("### Open questions"), summary.indexOf("### Tasks"));
    expect(open).toContain("remember-me flag");
    expect(open).not.toContain("7d or 30d");
  });

  it("is deterministic: same cut, same bytes and id; another cut, another id; the blob hashes to its name", async () => {
    const id = await nativeThread();
    const { entries } = await getHandoff({ id });
    const first = await exportHandoff({ id, format: "bundle" });
    const again = await exportHandoff({ id, format: "bundle" });
    expect(again.text).toBe(first.text);
    expect(again.artifactId).toBe(first.artifactId);
    expect(first.text).toBe(canonicalJson(JSON.parse(first.text)));
    expect(first.text).not.toMatch(/":\s|,\s"/);

    const file = blobPath(first.artifactId!);
    expect(path.dirname(file)).toBe(path.join(dataDir(), "artifacts", "blobs"));
    expect(createHash("sha256").update(fs.readFileSync(file)).digest("hex")).toBe(first.artifactId);
    expect(fs.readFileSync(file, "utf8")).toBe(first.text);

    const earlier = await exportHandoff({ id, format: "bundle", cut: entries[2].seq });
    expect(earlier.artifactId).not.toBe(first.artifactId);
    expect(JSON.parse(earlier.text).refs.threads[0].seq).toBe(entries[2].seq);

    // New entries after the cut do not change an export at that cut.
    await addEntry({ id, type: "done", content: "Shipped.", asClient: "code" });
    const later = await exportHandoff({ id, format: "bundle", cut: entries.at(-1)!.seq });
    expect(later.text).toBe(first.text);
    expect(await storedArtifact(first.artifactId!)).toEqual({ handoff_id: id, cut_seq: entries.at(-1)!.seq, purpose: "export", content: first.text });
  });

  it("re-imports as a child linked both ways, by text or by artifact id, without copying the parent's entries", async () => {
    const parentId = await nativeThread("Parent thread");
    const { entries } = await getHandoff({ id: parentId });
    const cut = entries[3].seq;
    const exported = await exportHandoff({ id: parentId, format: "bundle", cut });
    const child = await importDocument({ artifactId: exported.artifactId! });
    expect(child.parentId).toBe(parentId);
    expect(child.entries).toHaveLength(1);
    expect(child.entries[0].content).toBe(JSON.parse(exported.text).summary_markdown);

    const childView = await getProvenance({ id: child.handoff.id });
    expect(childView.parent).toMatchObject({ id: parentId, title: "Parent thread", seq: cut });
    const parentView = await getProvenance({ id: parentId });
    expect(parentView.children).toEqual([{ id: child.handoff.id, title: child.handoff.title, status: "active", seq: cut }]);
    expect(parentView.artifacts.map((artifact) => artifact.id)).toContain(exported.artifactId);

    // The child's own export, once it has moved on, names its cut and its parent's.
    await addEntry({ id: child.handoff.id, type: "progress", content: "Picked up from the bundle.", asClient: "code" });
    const grandchild = JSON.parse((await exportHandoff({ id: child.handoff.id, format: "bundle" })).text);
    expect(grandchild.refs.threads[0]).toMatchObject({ thread_id: child.handoff.id, note: "source cut" });
    expect(grandchild.refs.threads[1]).toMatchObject({ thread_id: parentId, seq: cut, note: "parent cut" });
    expect(grandchild.refs.artifacts[0]).toEqual({ artifact_id: exported.artifactId, note: "base context bundle" });
  });

  it("refuses a cut that is not one of the thread's entries", async () => {
    const id = await nativeThread();
    const error = await invalidOf(exportHandoff({ id, format: "bundle", cut: 999_999 }));
    expect(error.fieldErrors.cut[0]).toMatch(/must be the seq of one of the thread's entries; its entries have seqs \d+–\d+/);
    const format = await invalidOf(exportHandoff({ id, format: "pdf" }));
    expect(format.fieldErrors.format).toEqual(["must be bundle, json or yaml"]);
  });
});

describe("closing with a kept context bundle", () => {
  it("exports the whole thread, records a close_archive artifact, then wipes the entries", async () => {
    const id = await nativeThread();
    const before = await getHandoff({ id });
    const closed = await closeHandoff({ id, archive: true });
    expect(closed.handoff.status).toBe("completed");
    expect((await getHandoff({ id })).entries).toEqual([]);
    const provenance = await getProvenance({ id });
    expect(provenance.keptBundle).toMatchObject({ id: closed.artifactId, purpose: "close_archive", cutSeq: before.entries.at(-1)!.seq });
    const kept = JSON.parse(fs.readFileSync(blobPath(closed.artifactId!), "utf8"));
    expect(kept.refs.threads[0]).toMatchObject({ thread_id: id, seq: before.entries.at(-1)!.seq });
    for (const entry of before.entries) expect(kept.summary_markdown).toContain(entry.content);
    // Exporting a wiped thread says why there is nothing, and closing again returns the kept bundle.
    expect((await invalidOf(exportHandoff({ id, format: "bundle" }))).message).toMatch(/wiped when it closed/);
    expect((await closeHandoff({ id, archive: true })).artifactId).toBe(closed.artifactId);
  });

  it("archives a child that added nothing under its own name, leaving its parent's exported bundle alone", async () => {
    const parentId = await nativeThread("Archived parent");
    const exported = await exportHandoff({ id: parentId, format: "bundle" });
    const child = await importDocument({ artifactId: exported.artifactId! });
    const closed = await closeHandoff({ id: child.handoff.id, archive: true });
    expect(closed.artifactId).not.toBe(exported.artifactId);
    const kept = JSON.parse(fs.readFileSync(blobPath(closed.artifactId!), "utf8"));
    expect(kept.refs.threads[0]).toMatchObject({ thread_id: child.handoff.id, seq: child.entries[0].seq, note: "source cut" });
    expect(kept.refs.artifacts).toEqual([{ artifact_id: exported.artifactId, note: "base context bundle" }]);
    expect((await getProvenance({ id: parentId })).artifacts.map((artifact) => artifact.id)).toContain(exported.artifactId);
    expect((await getProvenance({ id: child.handoff.id })).keptBundle?.id).toBe(closed.artifactId);
  });

  it("keeps the bundle in the database beside the wipe when the artifact folder cannot be written", async () => {
    const id = await nativeThread();
    const before = await getHandoff({ id });
    const artifacts = path.join(dataDir(), "artifacts");
    fs.rmSync(artifacts, { recursive: true, force: true });
    fs.writeFileSync(artifacts, "not a folder");
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    let closed: Awaited<ReturnType<typeof closeHandoff>>;
    let messages: unknown[];
    try {
      closed = await closeHandoff({ id, archive: true });
    } finally {
      messages = logged.mock.calls.map(([message]) => message);
      logged.mockRestore();
      fs.rmSync(artifacts, { force: true });
    }
    expect(messages).toEqual([expect.stringContaining(`bundle ${closed.artifactId} is stored in the database`)]);
    expect((await getHandoff({ id })).entries).toEqual([]);
    const kept = await storedArtifact(closed.artifactId!);
    expect(kept).toMatchObject({ handoff_id: id, cut_seq: before.entries.at(-1)!.seq, purpose: "close_archive" });
    expect(JSON.parse(kept!.content!).summary_markdown).toContain(before.entries[0].content);
    expect((await readBlob(closed.artifactId!)).toString("utf8")).toBe(kept!.content);
  });
});

describe("artifacts in the database", () => {
  it("an artifact's content is read from the database when its file is gone: by id, over import, and for an imported bundle", async () => {
    const id = await nativeThread("Read from the database");
    const exported = await exportHandoff({ id, format: "bundle" });
    const closed = await closeHandoff({ id, archive: true });
    const imported = await importDocument({ text: EXAMPLE_DOCUMENTS.bundle.text });
    const importedArtifact = imported.artifactId!;
    for (const artifactId of [exported.artifactId!, closed.artifactId!, importedArtifact]) expect(fs.existsSync(blobPath(artifactId))).toBe(true);

    // Another instance of a team server: the same database, an empty artifact folder.
    fs.rmSync(path.join(dataDir(), "artifacts"), { recursive: true, force: true });
    expect((await readBlob(exported.artifactId!)).toString("utf8")).toBe(exported.text);
    expect(JSON.parse((await readBlob(closed.artifactId!)).toString("utf8")).refs.threads[0]).toMatchObject({ thread_id: id });
    expect((await readBlob(importedArtifact)).toString("utf8")).toBe(canonicalJson(JSON.parse(EXAMPLE_DOCUMENTS.bundle.text)));
    const child = await importDocument({ artifactId: exported.artifactId! });
    expect(child.parentId).toBe(id);
    expect(child.entries[0].content).toBe(JSON.parse(exported.text).summary_markdown);
    await expect(readBlob("0".repeat(64))).rejects.toThrow(/not found in the database or in/);
  });

  it("reads a row written before the content column from its file, fills the column on the next export, and never answers bytes that do not hash to the id", async () => {
    const id = await nativeThread("Written before the column");
    const exported = await exportHandoff({ id, format: "bundle" });
    const artifactId = exported.artifactId!;
    await write((tx) => tx.run("UPDATE artifacts SET content = NULL WHERE id = ?", [artifactId]));
    expect((await readBlob(artifactId)).toString("utf8")).toBe(exported.text);
    await exportHandoff({ id, format: "bundle" });
    expect((await storedArtifact(artifactId))?.content).toBe(exported.text);

    // The database's copy wins over a damaged file; a damaged copy in both is refused.
    fs.writeFileSync(blobPath(artifactId), "{\"tampered\":true}");
    expect((await readBlob(artifactId)).toString("utf8")).toBe(exported.text);
    await write((tx) => tx.run("UPDATE artifacts SET content = ? WHERE id = ?", ["{\"tampered\":true}", artifactId]));
    await expect(readBlob(artifactId)).rejects.toThrow(/corrupt/);
  });
});

describe("quality warnings", () => {
  const base = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
  const warningCodes = async (doc: unknown) => {
    const preview = await previewImport({ text: JSON.stringify(doc) });
    if (!preview.ok) throw new Error(preview.message);
    return preview.warnings.map((warning) => warning.code);
  };

  it("flag each of seed 002's anti-patterns without blocking the import", async () => {
    expect(await warningCodes({ ...base, handoff_instruction: "Continue working on the feature" })).toEqual(["vague_instruction"]);
    expect(await warningCodes({ ...base, work_in_progress: { ...base.work_in_progress, next_steps: [] } })).toEqual(["no_next_steps"]);
    expect(await warningCodes({ ...base, current_story: { ...base.current_story, status: "blocked" } })).toEqual(["blocked_without_blockers"]);
    expect(await warningCodes({ ...base, current_story: { ...base.current_story, progress_percent: 100 } })).toEqual(["complete_but_not_done"]);
    expect(await warningCodes({ ...base, work_in_progress: { ...base.work_in_progress, next_steps: ["Then start US-043 (bulk edit)"] } })).toEqual([
      "multiple_stories",
    ]);
    expect(await warningCodes({ ...base, work_in_progress: { ...base.work_in_progress, files_modified: [] } })).toEqual(["missing_files"]);
    const imported = await importDocument({ text: JSON.stringify({ ...base, handoff_instruction: "Continue working on the feature", blockers: [] }) });
    const provenance = await getProvenance({ id: imported.handoff.id });
    expect(provenance.source?.warnings.map((warning) => warning.field)).toEqual(["handoff_instruction"]);
  });

  it("apply to handoff.yaml too: vague now, blocked with nothing saying why, in progress with no files", async () => {
    const preview = await previewImport({ text: "goal: Ship auth\nstatus: blocked\nnow: Working on project\n", fileName: "handoff.yaml" });
    expect(preview.ok && preview.warnings.map((warning) => warning.code)).toEqual(["vague_instruction", "blocked_without_blockers"]);
    const inProgress = await previewImport({ text: "goal: Ship auth\nstatus: in_progress\nnow: Fix expiry check in auth.py\n", fileName: "handoff.yaml" });
    expect(inProgress.ok && inProgress.warnings.map((warning) => warning.code)).toEqual(["missing_files"]);
  });
});

describe("validation and preview", () => {
  it("names every bad field by path and stores nothing", async () => {
    const before = await counts();
    const bad = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    bad.current_story.progress_percent = 140;
    bad.reason = "tired";
    delete bad.handoff_instruction;
    const error = await invalidOf(importDocument({ text: JSON.stringify(bad) }));
    expect(error.fieldErrors).toEqual({
      reason: ['must be one of context_threshold, error, user_request (got "tired")'],
      "current_story.progress_percent": ["must be 0–100"],
      handoff_instruction: ["is required"],
    });
    const preview = await previewImport({ text: JSON.stringify(bad) });
    expect(preview.ok).toBe(false);
    if (!preview.ok) expect(preview.message).toContain("current_story.progress_percent: must be 0–100");
    expect(await counts()).toEqual(before);
  });

  it("previews exactly what an import creates, without writing", async () => {
    const before = await counts();
    const preview = await previewImport({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text });
    expect(preview).toMatchObject({ ok: true, format: "handoff_yaml", title: "Implement user authentication with JWT" });
    expect(await counts()).toEqual(before);
    const imported = await importDocument({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text });
    if (!preview.ok) throw new Error("preview failed");
    expect(imported.entries.map((entry) => entry.content)).toEqual(preview.entries.map((entry) => entry.content));
  });

  it("detects formats by their keys and says what it could not read", () => {
    expect(detectFormat(EXAMPLE_DOCUMENTS.bundle.text).format).toBe("bundle");
    expect(detectFormat(EXAMPLE_DOCUMENTS.handoff_json.text).format).toBe("handoff_json");
    expect(detectFormat(EXAMPLE_DOCUMENTS.handoff_yaml.text).format).toBe("handoff_yaml");
    expect(detectFormat('{"goal": "x", "status": "in_progress", "now": "y"}').format).toBe("handoff_yaml");
    expect(() => detectFormat("{ nope")).toThrow(/invalid JSON/);
    expect(() => detectFormat("a: [1, 2")).toThrow(/invalid YAML/);
    expect(() => detectFormat("title: hello\n")).toThrow(/not a handoff document Baton knows/);
  });

  it("handoff.yaml follows the seed's save and update rules", () => {
    const at = new Date("2026-02-01T08:00:00.000Z");
    expect(validateHandoffYaml({ goal: "g", status: "in_progress", now: "n" }, at).timestamp).toBe(at.toISOString());
    try {
      validateHandoffYaml({ status: "in_progress", now: "n" });
      throw new Error("accepted a handoff without goal");
    } catch (error) {
      expect((error as Invalid).fieldErrors).toEqual({ goal: ["is required"] });
    }
    const existing = { goal: "g", status: "in_progress", now: "n", files: ["a.py"], timestamp: "2026-01-01T00:00:00Z", extra: 1 };
    const merged = mergeHandoffYaml(existing, { now: "next", hypothesis: undefined }, at);
    expect(merged).toEqual({ ...existing, now: "next", timestamp: at.toISOString() });
    expect(mergeHandoffYaml(existing, {}, at).timestamp).toBe(at.toISOString());
  });
});

describe("a project's last checkpoint, as End shift's start", () => {
  const checkpoint = (goal: string, now: string, extra = "") => `goal: ${goal}\nstatus: in_progress\nnow: ${now}\ntimestamp: 2026-11-27T08:00:00Z\n${extra}`;

  it("is the newest pushed checkpoint of the project, its sections filled and the rest left empty", async () => {
    const first = await pushCheckpoint({ text: checkpoint("Stream the importer", "Reading the spec"), handoffId: null, project: "streams" });
    await pushCheckpoint({ text: checkpoint("Stream the importer", "Rewriting parse()", "outcome: parse() yields entries\nfiles: [lib/formats/plan-import.ts]\n"), handoffId: first.handoff.id, project: "streams" });
    await pushCheckpoint({ text: checkpoint("Another project's goal", "Elsewhere"), handoffId: null, project: "elsewhere" });
    const found = await lastCheckpointOf("streams");
    expect(found?.handoffId).toBe(first.handoff.id);
    expect(found?.savedAt).toBe("2026-11-27T08:00:00Z");
    expect(found?.document).toBe(
      "# Handoff\n\n## Goal\nStream the importer\n\n## Done\nparse() yields entries\n\n## In progress\nRewriting parse()\n\n## Next steps\n\n\n## Blockers\n\n\n## Key files\n- `lib/formats/plan-import.ts`\n",
    );
    expect(await lastCheckpointOf("no-such-project")).toBeNull();
  });

  it("keeps a file or branch name holding backticks inside its code span", async () => {
    await pushCheckpoint({ text: checkpoint("Odd names", "Renaming", "files: ['docs/we`ird.md', '`start.ts']\nbranch: fix/`tick`\n"), handoffId: null, project: "ticks" });
    const found = await lastCheckpointOf("ticks");
    expect(found?.document).toContain("## Key files\n- ``docs/we`ird.md``\n- `` `start.ts ``\n\nBranch: `` fix/`tick` ``\n");
  });
});
