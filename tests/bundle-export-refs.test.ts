import { describe, expect, it } from "vitest";
import { BUNDLE_SCHEMA, MAX_BUNDLE_BYTES } from "../lib/formats/bundle";
import { MAX_LIST_ITEMS } from "../lib/formats/schema-helpers";
import { apiServerForFile } from "./support/api-server";
import { runBaton } from "./support/baton-command";

/**
 * A bundle Baton writes from a thread imported from a bundle carries that bundle's refs, plus a
 * ref to the bundle itself: it must still be one Baton reads (at most 200 items a list) and stay
 * within its 64 KiB. A bundle of 200 artifact refs was imported, then its thread could not be
 * closed with an archive nor exported as a bundle (201 refs: "Baton built a rip context bundle it
 * would refuse", a 500).
 */
const api = apiServerForFile();

const post = async (route: string, body: unknown) => {
  const answer = await api.fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: answer.status, body: await answer.json() };
};

async function baton(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runBaton(args);
  return { status: code, stdout, stderr };
}

/** A bundle at the limits: 200 artifact refs and 200 file refs, with notes of `noteLength` characters. */
function bundleWithRefs(noteLength: number, files = MAX_LIST_ITEMS): string {
  const note = "n".repeat(noteLength);
  return JSON.stringify({
    schema: BUNDLE_SCHEMA,
    summary_markdown: "### Refs at the limit\n- every list full",
    refs: {
      threads: [],
      artifacts: Array.from({ length: MAX_LIST_ITEMS }, (_, i) => ({ artifact_id: `artifact-${i}`, note })),
      files: Array.from({ length: files }, (_, i) => ({ path: `src/file-${i}.ts`, note })),
    },
  });
}

async function importBundle(text: string): Promise<string> {
  const imported = await post("/api/import", { text });
  expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(201);
  return imported.body.handoff.id;
}

/** The bundle as Baton writes it: read back as an import reads it, and within 64 KiB. */
async function expectReadable(bundle: string) {
  expect(Buffer.byteLength(bundle, "utf8")).toBeLessThanOrEqual(MAX_BUNDLE_BYTES);
  const preview = await post("/api/import", { text: bundle, dryRun: true });
  expect(preview.body.ok, JSON.stringify(preview.body).slice(0, 300)).toBe(true);
  const refs = JSON.parse(bundle).refs;
  // The bundle it came from is named first: it holds every ref left out.
  expect(refs.artifacts[0].note).toBe("base context bundle");
}

describe("a bundle exported from a thread imported from a bundle with full ref lists", () => {
  it.each([
    ["200 artifact refs without notes", bundleWithRefs(0)],
    ["200 artifact and 30 file refs with notes of 4,096 characters (the import's 1 MiB, nearly)", bundleWithRefs(4096, 30)],
  ])("%s: closes with an archive, and exports as a bundle Baton reads", async (_name, text) => {
    const id = await importBundle(text);
    const added = await post(`/api/handoffs/${id}/entries`, { type: "progress", content: "Carried on from the bundle" });
    expect(added.status).toBe(201);

    const exported = await baton(["export", id, "--format", "bundle"]);
    expect(exported.status, exported.stderr).toBe(0);
    await expectReadable(exported.stdout);

    const closed = await post(`/api/handoffs/${id}/close`, { archive: true });
    expect(closed.status, JSON.stringify(closed.body).slice(0, 300)).toBe(200);
    const kept = await api.fetch(`/api/artifacts/${closed.body.artifactId}`);
    await expectReadable(await kept.text());
  }, 60_000);
});
