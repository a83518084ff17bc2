import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  getAgent,
  getContinuityChain,
  getShiftDocument,
  SHIFT_DOCUMENT_TEMPLATE,
  withoutEmptySections,
  loadShiftDocument,
  registerAgent,
  triggerHandoff,
  updateAgent,
} from "../lib/agents";
import { dataDir } from "../lib/config";
import { read, storedDate, write } from "../lib/database";
import { Conflict, Invalid } from "../lib/errors";
import { countRows } from "./support/rows";
import { rejectionOf } from "./support/rejection";

const DOCUMENT = `${SHIFT_DOCUMENT_TEMPLATE.replace("## Goal\n", "## Goal\nFinish the exporter.\n")}`;

const caught = (promise: Promise<unknown>) => rejectionOf(promise, Error);

/** Every file (not folder) under the data folder's personas/, relative to it. */
function personaFiles(): string[] {
  const root = path.join(dataDir(), "personas");
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true, encoding: "utf8" }).filter((entry) => fs.statSync(path.join(root, entry)).isFile());
}

async function counts() {
  return { agents: await countRows("agents"), records: await countRows("handoff_records") };
}

describe("triggerHandoff", () => {
  it("writes the document where the PRD says, creates the successor and ends the agent", async () => {
    const agent = await registerAgent({ personaSlug: "developer-con-1", project: "baton", name: "Con", tmuxTarget: "old:1.0" });
    const { record, agent: ended, successor } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT });

    const file = path.join(dataDir(), record.filePath!);
    expect(fs.readFileSync(file, "utf8")).toBe(DOCUMENT);
    expect(path.basename(file)).toMatch(new RegExp(`^\\d{8}T\\d{6}-${agent.shortId}-[0-9a-f]{8}\\.md$`));
    expect(record.filePath!.startsWith("personas/developer-con-1/handoffs/")).toBe(true);
    // No temporary file is left beside it.
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);

    expect(ended).toMatchObject({ id: agent.id, status: "ended" });
    expect(ended.endedAt).toBe(record.createdAt);
    expect(successor).toMatchObject({
      personaSlug: "developer-con-1",
      project: "baton",
      name: "Con",
      status: "active",
      previousAgentId: agent.id,
      tmuxTarget: null,
    });
    expect(successor.sessionId).not.toBe(agent.sessionId);
    expect(record.delivery).toBe("no target");

    const read = await loadShiftDocument(record.filePath);
    expect(read).toEqual({ status: "ok", filePath: record.filePath, content: DOCUMENT });
  });

  it("is all or nothing: a failure after the file write leaves no file and no rows", async () => {
    const existing = await registerAgent({ personaSlug: "holder" });
    const agent = await registerAgent({ personaSlug: "atomic" });
    const before = await counts();
    // The successor's insert violates the unique session id inside the transaction, after the write.
    const error = await caught(
      triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT, successor: { sessionId: existing.sessionId } }),
    );
    expect(error).toBeInstanceOf(Conflict);
    expect(error.message).toMatch(/already registered/);
    expect(personaFiles()).not.toContainEqual(expect.stringMatching(/^atomic\//));
    expect(fs.readdirSync(path.join(dataDir(), "personas", "atomic", "handoffs"))).toEqual([]);
    expect(await counts()).toEqual(before);
    const unchanged = await getAgent({ agentId: agent.id });
    expect(unchanged).toMatchObject({ status: "active", endedAt: null, handoff: null });
    // And it can still hand off afterwards.
    const { record } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT });
    expect(fs.existsSync(path.join(dataDir(), record.filePath!))).toBe(true);
  });

  it("double submission: of two handoffs at once, one wins and the other gets the Conflict", async () => {
    const agent = await registerAgent({ personaSlug: "double" });
    const before = await counts();
    const results = await Promise.allSettled([
      triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT }),
      triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT }),
    ]);
    const fulfilled = results.filter((result) => result.status === "fulfilled");
    const rejected = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBeInstanceOf(Conflict);
    expect(await counts()).toEqual({ agents: before.agents + 1, records: before.records + 1 });
    const files = personaFiles().filter((file) => file.startsWith("double/"));
    expect(files).toHaveLength(1);
    const record = (await getAgent({ agentId: agent.id })).handoff!;
    expect(`personas/${files[0]}`).toBe(record.filePath);
  });

  it("the desk drops the template's empty sections on save: what remains is what was written", () => {
    expect(withoutEmptySections(SHIFT_DOCUMENT_TEMPLATE.replace("## Next steps\n", "## Next steps\n- ship the exporter\n"))).toBe(
      "# Handoff\n\n## Next steps\n- ship the exporter\n",
    );
    // Text under a heading keeps it, blank lines inside a section stay, the top heading stays.
    const written = "# Handoff\n\n## Goal\nOne.\n\nTwo.\n\n## Done\n\n## Blockers\nNone really.\n";
    expect(withoutEmptySections(written)).toBe("# Handoff\n\n## Goal\nOne.\n\nTwo.\n\n## Blockers\nNone really.\n");
    expect(withoutEmptySections(SHIFT_DOCUMENT_TEMPLATE)).toBe("# Handoff\n");
  });

  it("refuses an empty document or one with only the template's headings, writing nothing", async () => {
    const agent = await registerAgent({ personaSlug: "empty-doc" });
    for (const document of ["", "   \n\n", "\u200b\n\u2060", SHIFT_DOCUMENT_TEMPLATE, withoutEmptySections(SHIFT_DOCUMENT_TEMPLATE)]) {
      const error = (await caught(triggerHandoff({ agentId: agent.id, reason: "shift_end", document }))) as Invalid;
      expect(error).toBeInstanceOf(Invalid);
      expect(error.fieldErrors.document?.[0]).toMatch(/empty|only headings/);
      // One reason each: an empty document is empty (it was also said to hold only headings).
      expect(error.fieldErrors.document).toHaveLength(1);
    }
    expect(personaFiles().filter((file) => file.startsWith("empty-doc/"))).toEqual([]);
    expect((await getAgent({ agentId: agent.id })).status).toBe("active");
  });

  it("counts the text under a heading line of bare marks, and refuses headings alone however they are marked", async () => {
    const agent = await registerAgent({ personaSlug: "bare-marks" });
    // Under its headings, a line of characters that print nothing is no section filled in either.
    for (const document of ["# Handoff\n## Goal\n#\n", "  ## Goal\n### Done", "## Goal\n\u200b\u2060\n## Next steps\n"]) {
      const error = (await caught(triggerHandoff({ agentId: agent.id, reason: "shift_end", document }))) as Invalid;
      expect(error, JSON.stringify(document)).toBeInstanceOf(Invalid);
      expect(error.fieldErrors.document?.[0]).toMatch(/only headings/);
    }
    const { record } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: "#\nFinish the token refresh in src/auth.ts" });
    expect(record.reason).toBe("shift_end");
  });

  it("a tmux delivery failure is recorded and never undoes the handoff", async () => {
    const agent = await registerAgent({ personaSlug: "no-pane" });
    const previous = process.env.BATON_TMUX_SOCKET;
    process.env.BATON_TMUX_SOCKET = `baton-absent-${process.pid}`;
    try {
      const { record, successor } = await triggerHandoff({
        agentId: agent.id,
        reason: "context_limit",
        document: DOCUMENT,
        successor: { tmuxTarget: "nowhere:0.0" },
      });
      expect(record.delivery).toMatch(/^failed: /);
      expect(successor.tmuxTarget).toBe("nowhere:0.0");
      const chain = await getContinuityChain({ agentId: successor.id });
      expect(chain.predecessors.map((node) => node.id)).toEqual([agent.id]);
      expect(chain.predecessors[0].handoff?.delivery).toBe(record.delivery);
    } finally {
      if (previous === undefined) delete process.env.BATON_TMUX_SOCKET;
      else process.env.BATON_TMUX_SOCKET = previous;
    }
  });
});

describe("the shift document in the database", () => {
  it("is stored with the record and served from there when its file is gone (another instance, a wiped folder)", async () => {
    const agent = await registerAgent({ personaSlug: "stored-doc" });
    const { record, successor } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT });
    const stored = await read((tx) => tx.get<{ document: string }>("SELECT document FROM handoff_records WHERE id = ?", [record.id]));
    expect(stored?.document).toBe(DOCUMENT);

    fs.rmSync(path.join(dataDir(), record.filePath!));
    expect(await loadShiftDocument(record.filePath)).toEqual({ status: "ok", filePath: record.filePath, content: DOCUMENT });
    expect(await loadShiftDocument(record.filePath, record.id)).toEqual({ status: "ok", filePath: record.filePath, content: DOCUMENT });
    const served = await getShiftDocument({ agentId: successor.id });
    expect(served.content).toBe(DOCUMENT);
    expect(served.record.deliveryState).toBe("read");
  });

  it("a record from before documents were stored is read from its file, and is missing without it", async () => {
    const agent = await registerAgent({ personaSlug: "file-doc" });
    const { record } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT });
    await write((tx) => tx.run("UPDATE handoff_records SET document = NULL WHERE id = ?", [record.id]));
    expect((await getShiftDocument({ agentId: agent.id })).content).toBe(DOCUMENT);

    fs.rmSync(path.join(dataDir(), record.filePath!));
    expect(await loadShiftDocument(record.filePath)).toEqual({ status: "missing", filePath: record.filePath });
    const error = await caught(getShiftDocument({ agentId: agent.id }));
    expect(error).toBeInstanceOf(Conflict);
    expect(error.message).toMatch(/is missing from Baton's data folder/);
  });
});

describe("escape attempts are refused with a clear message and write nothing", () => {
  const badSlugs = ["../etc", "a/b", "/abs", "..", "x;rm -rf ~", "dev\nnew", "dev$(id)", "Dev", "dev--1", "-dev", "a".repeat(65)];
  const badTargets = ["work;kill-server", "work:1.0; rm -rf /", "$(reboot)", "work\nEnter", "../x", "/tmp/sock", "work:1.0 extra", "`id`", "-t", "work:1.x", "a|b", "work:&"];

  it("a name of characters that print nothing alone", async () => {
    const before = await counts();
    const error = (await caught(registerAgent({ personaSlug: "invisible", name: "\u200b\u3164" }))) as Invalid;
    expect(error).toBeInstanceOf(Invalid);
    expect(error.fieldErrors.name).toEqual(["name must not be empty (characters that print nothing, such as U+200B, do not count)"]);
    expect(await counts()).toEqual(before);
  });

  it.each(badSlugs)("persona slug %j", async (personaSlug) => {
    const before = await counts();
    const error = (await caught(registerAgent({ personaSlug }))) as Invalid;
    expect(error).toBeInstanceOf(Invalid);
    expect(error.fieldErrors.personaSlug?.[0]).toMatch(/persona .* (is not a slug|at most 64)|persona must be/);
    expect(await counts()).toEqual(before);
  });

  it.each(badTargets)("tmux target %j", async (tmuxTarget) => {
    const agent = await registerAgent({ personaSlug: "escaper" });
    const before = await counts();
    const filesBefore = personaFiles();
    const error = (await caught(
      triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT, successor: { tmuxTarget } }),
    )) as Invalid;
    expect(error).toBeInstanceOf(Invalid);
    expect(error.fieldErrors["successor.tmuxTarget"]?.[0]).toMatch(/tmux target .* is not valid/);
    expect(await caught(registerAgent({ personaSlug: "escaper", tmuxTarget }))).toBeInstanceOf(Invalid);
    expect(await caught(updateAgent({ agentId: agent.id, tmuxTarget }))).toBeInstanceOf(Invalid);
    expect(await counts()).toEqual(before);
    expect(personaFiles()).toEqual(filesBefore);
    expect((await getAgent({ agentId: agent.id })).tmuxTarget).toBeNull();
  });

  it("a persona slug written into the database by hand is still refused when the path is built", async () => {
    const rogue = (await write((tx) =>
      tx.get<{ id: number }>("INSERT INTO agents (session_id, persona_slug, name, started_at) VALUES (?, ?, ?, ?) RETURNING id", [
        "abcdef01-2345-4678-89ab-cdef01234567",
        "../../outside",
        "rogue",
        storedDate(),
      ]),
    ))!;
    const before = await counts();
    const filesBefore = personaFiles();
    const error = await caught(triggerHandoff({ agentId: rogue.id, reason: "shift_end", document: DOCUMENT }));
    expect(error).toBeInstanceOf(Invalid);
    expect(error.message).toMatch(/cannot build a handoff path from persona "..\/..\/outside"/);
    expect(await counts()).toEqual(before);
    expect(personaFiles()).toEqual(filesBefore);
    expect(fs.existsSync(path.join(path.dirname(dataDir()), "outside"))).toBe(false);
  });

  it("a persona folder that is a symbolic link out of the data folder is refused", async () => {
    const outside = fs.mkdtempSync(path.join(path.dirname(dataDir()), "baton-outside-"));
    try {
      fs.mkdirSync(path.join(dataDir(), "personas"), { recursive: true });
      fs.symlinkSync(outside, path.join(dataDir(), "personas", "linked"));
      const agent = await registerAgent({ personaSlug: "linked" });
      const before = await counts();
      const error = await caught(triggerHandoff({ agentId: agent.id, reason: "shift_end", document: DOCUMENT }));
      expect(error).toBeInstanceOf(Invalid);
      expect(error.message).toMatch(/outside the data folder/);
      expect(fs.readdirSync(outside, { recursive: true })).toEqual([]);
      expect(await counts()).toEqual(before);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("reading a document refuses paths outside the data folder and reports missing ones", async () => {
    const secret = path.join(path.dirname(dataDir()), `baton-secret-${process.pid}.md`);
    fs.writeFileSync(secret, "secret");
    try {
      for (const filePath of ["../" + path.basename(secret), secret, "personas/../../" + path.basename(secret)]) {
        expect(await loadShiftDocument(filePath)).toEqual({ status: "outside", filePath });
      }
      fs.symlinkSync(secret, path.join(dataDir(), "leak.md"));
      expect(await loadShiftDocument("leak.md")).toEqual({ status: "outside", filePath: "leak.md" });
      expect(await loadShiftDocument("personas/x/handoffs/gone.md")).toEqual({ status: "missing", filePath: "personas/x/handoffs/gone.md" });
      expect(await loadShiftDocument(null)).toEqual({ status: "no path" });
      fs.mkdirSync(path.join(dataDir(), "a-folder.md"));
      expect(await loadShiftDocument("a-folder.md")).toMatchObject({ status: "unreadable", reason: "EISDIR" });
    } finally {
      fs.rmSync(secret, { force: true });
    }
  });
});
