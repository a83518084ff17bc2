import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addEntry, createHandoff } from "../lib/handoffs";
import { runBaton } from "./support/baton-command";
import { temporaryFolders } from "./support/temp-folders";

const tempFolder = temporaryFolders("baton-export-cut-");

/**
 * `baton export --cut N` cuts at the entry whose seq is N (as the API, the export route and a
 * bundle's refs name a cut). Its usage said "cut at entry #N": with two threads written in turn
 * (seqs are global), `--cut 3` meant for entry #3 exported another entry, and said nothing.
 */

describe("baton export --cut", () => {
  it("says it takes a seq, and cuts there", async () => {
    const usage = await runBaton(["export", "--help"]);
    // --cut is a seq; the #number people see has its own flag.
    expect(usage.stdout + usage.stderr).toMatch(/\[--cut-at-entry N \| --cut SEQ\]/);
    expect(usage.stdout + usage.stderr).toMatch(/cut at entry #N, as the desk and get_handoff number entries, or at the entry\swhose seq is SEQ/);

    const one = await createHandoff({ title: "One", content: "first of one" });
    const two = await createHandoff({ title: "Two", content: "first of two" });
    await addEntry({ id: one.handoff.id, type: "task", content: "second of one", asClient: "chat" });
    const second = await addEntry({ id: two.handoff.id, type: "task", content: "second of two", asClient: "chat" });
    await addEntry({ id: two.handoff.id, type: "task", content: "third of two", asClient: "chat" });
    expect(second.entry.number).toBe(2);
    expect(second.entry.seq).not.toBe(2);
    const exported = await runBaton(["export", two.handoff.id, "--format", "bundle", "--cut", String(second.entry.seq)]);
    expect(exported.code, exported.stderr).toBe(0);
    const bundle = JSON.parse(exported.stdout);
    expect(bundle.refs.threads[0]).toMatchObject({ thread_id: two.handoff.id, seq: second.entry.seq });
    expect(bundle.summary_markdown).toContain("second of two");
    expect(bundle.summary_markdown).not.toContain("third of two");
  }, 60_000);
});

describe("baton export --cut-at-entry", () => {
  /** A thread whose entry #2 has another seq than 2 (another thread was written in between). */
  async function interleaved() {
    const one = await createHandoff({ title: "One", content: "first of one" });
    const two = await createHandoff({ title: "Two", content: "first of two" });
    await addEntry({ id: one.handoff.id, type: "task", content: "second of one", asClient: "chat" });
    const second = await addEntry({ id: two.handoff.id, type: "task", content: "second of two", asClient: "chat" });
    await addEntry({ id: two.handoff.id, type: "task", content: "third of two", asClient: "chat" });
    expect(second.entry.seq).not.toBe(2);
    return { id: two.handoff.id, second: second.entry };
  }

  it("cuts at the entry #N people see, whatever its seq", async () => {
    const { id, second } = await interleaved();
    const out = path.join(tempFolder(), "bundle.json");
    const exported = await runBaton(["export", id, "--format", "bundle", "--cut-at-entry", "2", "--out", out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(`wrote ${out} (cut at entry #2)`);
    const bundle = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(bundle.refs.threads[0]).toMatchObject({ thread_id: id, seq: second.seq });
    expect(bundle.summary_markdown).toContain("second of two");
    expect(bundle.summary_markdown).not.toContain("third of two");
  }, 60_000);

  it("refuses #N given as a seq, both cuts at once, and a number the thread does not have, each saying what to give", async () => {
    const { id } = await interleaved();
    const asSeq = await runBaton(["export", id, "--format", "bundle", "--cut", "#2"]);
    expect(asSeq.code).toBe(2);
    expect(asSeq.stderr).toMatch(/^baton export: --cut takes an entry's seq, not its #number; for entry #2 give --cut-at-entry 2\n/);
    const both = await runBaton(["export", id, "--format", "bundle", "--cut", "5", "--cut-at-entry", "2"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^baton export: give --cut-at-entry \(an entry's #number\) or --cut \(its seq\), not both\n/);
    const missing = await runBaton(["export", id, "--format", "bundle", "--cut-at-entry", "4"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("baton export: refused:\n  cutAtEntry: must be the number of one of the thread's entries; its entries are #1–#3\n");
    expect(missing.stdout).toBe("");
  }, 60_000);
});
