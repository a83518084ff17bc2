import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";

/**
 * An import's quality check (is the instruction vague?) searched the whole instruction with a
 * pattern that backtracks through a long word at every position: a 64 KiB one-word
 * handoff_instruction or `now` took about 4 s of the server's time per request, previews included,
 * for anyone who may import. Over the API, on a real socket.
 */
const api = apiServerForFile();

async function timedImport(text: string, dryRun: boolean): Promise<{ status: number; ms: number; body: { warnings?: { code: string }[] } }> {
  const started = performance.now();
  const response = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, dryRun }) });
  const body = await response.json();
  return { status: response.status, ms: performance.now() - started, body };
}

describe("an import's quality check takes bounded time", () => {
  it("a 64 KiB one-word instruction or now is previewed and imported in well under a second", async () => {
    const seed = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    const documents = [
      JSON.stringify({ ...seed, handoff_instruction: "w".repeat(65_000) }),
      `goal: Ship it\nstatus: in_progress\nnow: ${"a-".repeat(32_000)}\nfiles: [a.ts]\ntimestamp: 2026-01-17T10:30:00Z\n`,
    ];
    for (const text of documents) {
      for (const dryRun of [true, false]) {
        const { status, ms } = await timedImport(text, dryRun);
        expect(status).toBe(dryRun ? 200 : 201);
        expect(ms).toBeLessThan(1_000);
      }
    }
    // The check itself still tells a vague instruction from a concrete one.
    const vague = await timedImport(JSON.stringify({ ...seed, handoff_instruction: "Continue working on the feature" }), true);
    expect(vague.body.warnings?.map((warning) => warning.code)).toContain("vague_instruction");
    const concrete = await timedImport(JSON.stringify({ ...seed, handoff_instruction: `Continue in src/auth.ts ${"w".repeat(65_000)}` }), true);
    expect(concrete.body.warnings?.map((warning) => warning.code)).not.toContain("vague_instruction");
  }, 60_000);
});
