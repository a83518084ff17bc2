import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { read } from "../lib/database";
import { apiServerForFile } from "./support/api-server";
import { temporaryFolders } from "./support/temp-folders";
import { runBaton } from "./support/baton-command";

/**
 * A bundle's source cut (seed 001: `refs.threads[]`, the cut "in the referenced continuity
 * stream") that names a thread of this Baton must be a cut that thread has. Any bundle could
 * name any handoff with any seq, and Baton stored the link: a child under a thread it never came
 * from, cut at another thread's entry (seqs are global). Through the doors that import: the API
 * over a socket and the command line as users run it.
 */
const api = apiServerForFile();
const tempFolder = temporaryFolders("baton-parent-cut-");

type Ref = { thread_id: string; seq: number; message_id?: string | null; note?: string | null };
const bundle = (threads: Ref[]) =>
  JSON.stringify({ schema: "rip.handoff_context_bundle.v1", summary_markdown: "# Carried on\n- the context", refs: { threads, artifacts: [], files: [] } });

async function send(method: string, route: string, body?: unknown) {
  const response = await api.fetch(route, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** A native thread with two entries: its id and their seqs. */
async function thread(title: string): Promise<{ id: string; seqs: number[] }> {
  const created = await send("POST", "/api/handoffs", { title, content: "We chose JWT." });
  expect(created.status).toBe(201);
  const added = await send("POST", `/api/handoffs/${created.body.handoff.id}/entries`, { type: "task", content: "Add the refresh endpoint", asClient: "chat" });
  return { id: created.body.handoff.id, seqs: [created.body.entries[0].seq, added.body.entry.seq] };
}

const stored = () =>
  read((tx) => tx.get<{ handoffs: number; sources: number }>("SELECT (SELECT COUNT(*) FROM handoffs) AS handoffs, (SELECT COUNT(*) FROM handoff_sources) AS sources"));

describe("a bundle's source cut naming a thread of this Baton", () => {
  it("is refused over the API, with the field named, when that thread never had the cut; nothing is stored", async () => {
    const parent = await thread("Parent");
    const other = await thread("Another thread");
    const before = await stored();
    const refusals: [Ref[], string, RegExp][] = [
      // Another thread's entry, and a seq nobody wrote.
      [[{ thread_id: parent.id, seq: other.seqs[1] }], "refs.threads[0].seq", new RegExp(`handoff ${parent.id} has no entry with seq ${other.seqs[1]}; its entries have seqs ${parent.seqs[0]}–${parent.seqs[1]}`)],
      [[{ thread_id: parent.id, seq: 999_999 }], "refs.threads[0].seq", /has no entry with seq 999999/],
      // Baton's entries have no message ids: a cut that names one names something the thread never had.
      [[{ thread_id: parent.id, seq: parent.seqs[0], message_id: "22222222-2222-2222-2222-222222222222" }], "refs.threads[0].message_id", /must be null/],
      // The ref noted "source cut" is the one checked, and named by its own index.
      [[{ thread_id: "11111111-1111-1111-1111-111111111111", seq: 1 }, { thread_id: parent.id, seq: other.seqs[0], note: "source cut" }], "refs.threads[1].seq", /has no entry with seq/],
    ];
    for (const [threads, field, message] of refusals) {
      const imported = await send("POST", "/api/import", { text: bundle(threads) });
      expect(imported.status, JSON.stringify(imported.body)).toBe(400);
      expect(imported.body.error.code).toBe("INVALID");
      expect(imported.body.error.fieldErrors[field]).toEqual([expect.stringMatching(message)]);
      const preview = await send("POST", "/api/import", { text: bundle(threads), dryRun: true });
      expect(preview.status).toBe(200);
      expect(preview.body).toMatchObject({ ok: false, fieldErrors: { [field]: [expect.stringMatching(message)] } });
    }
    expect(await stored()).toEqual(before);
    expect((await send("GET", `/api/handoffs/${parent.id}`)).body.entries).toHaveLength(2);

    // A cut the parent has links; another system's thread (or another Baton's) is kept as written, unlinked.
    const child = await send("POST", "/api/import", { text: bundle([{ thread_id: parent.id, seq: parent.seqs[0], message_id: null, note: "source cut" }]) });
    expect(child.status).toBe(201);
    expect(child.body.parentId).toBe(parent.id);
    for (const foreign of ["11111111-1111-1111-1111-111111111111", "hof_AAAAAAAAAAAAAAAAAAAAA"]) {
      const kept = await send("POST", "/api/import", { text: bundle([{ thread_id: foreign, seq: 42, message_id: "m-1" }]) });
      expect(kept.status).toBe(201);
      expect(kept.body.parentId).toBeNull();
    }
  });

  it("once the thread closed, only the cuts Baton kept of it link: its kept bundle continues it, an earlier cut is refused", async () => {
    const parent = await thread("Closed parent");
    const closed = await send("POST", `/api/handoffs/${parent.id}/close`, { archive: true });
    expect(closed.status).toBe(200);
    const continued = await send("POST", "/api/import", { artifactId: closed.body.artifactId });
    expect(continued.status).toBe(201);
    expect(continued.body.parentId).toBe(parent.id);

    const before = await stored();
    const earlier = await send("POST", "/api/import", { text: bundle([{ thread_id: parent.id, seq: parent.seqs[0] }]) });
    expect(earlier.status).toBe(400);
    expect(earlier.body.error.fieldErrors["refs.threads[0].seq"]).toEqual([
      `handoff ${parent.id} has no entry with seq ${parent.seqs[0]}; its entries were wiped when it closed; Baton kept it cut at seq ${parent.seqs[1]}`,
    ]);
    expect(await stored()).toEqual(before);
  });

  it("baton import refuses it with the field path, exit 1, and stores nothing", async () => {
    const parent = await thread("Parent for the CLI");
    const other = await thread("Other for the CLI");
    const folder = tempFolder();
    fs.writeFileSync(path.join(folder, "bundle.json"), bundle([{ thread_id: parent.id, seq: other.seqs[0], note: "source cut" }]));
    const before = await stored();
    const refused = await runBaton(["import", "bundle.json"], { cwd: folder });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`refs.threads[0].seq: handoff ${parent.id} has no entry with seq ${other.seqs[0]}`);
    expect(refused.stderr).not.toMatch(/^\s+at /m);
    expect(await stored()).toEqual(before);

    fs.writeFileSync(path.join(folder, "bundle.json"), bundle([{ thread_id: parent.id, seq: parent.seqs[1], note: "source cut" }]));
    const imported = await runBaton(["import", "bundle.json"], { cwd: folder });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`child of ${parent.id}`);
  }, 60_000);
});
