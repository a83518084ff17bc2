import { describe, expect, it } from "vitest";
import { addEntry, createHandoff } from "../lib/handoffs";
import { runBaton } from "./support/baton-command";

/**
 * `baton export --cut N` cuts at the entry whose seq is N (as the API, the export route and a
 * bundle's refs name a cut). Its usage said "cut at entry #N": with two threads written in turn
 * (seqs are global), `--cut 3` meant for entry #3 exported another entry, and said nothing.
 */

describe("baton export --cut", () => {
  it("says it takes a seq, and cuts there", async () => {
    const usage = await runBaton(["export", "--help"]);
    expect(usage.stdout + usage.stderr).toMatch(/cut at the entry whose seq is N/);
    expect(usage.stdout + usage.stderr).not.toMatch(/cut at entry #N/);

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
