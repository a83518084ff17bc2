import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";
import { runBaton } from "./support/baton-command";

/**
 * Titles (200 characters) and a handoff.yaml's `now` (500) are cut from longer text between
 * characters. Cut inside a surrogate pair (an emoji across the limit), they held half of it: a
 * valid document was refused ("text must be valid Unicode … remove it"), and a thread's export
 * as handoff.yaml was one Baton then refused to import.
 */
const api = apiServerForFile();
const EMOJI = "\u{1F600}";
/** Text whose emoji straddles the `max`-th UTF-16 unit of its first line. */
const across = (max: number) => `${"a".repeat(max - 2)}${EMOJI} and more words after the limit`;

const post = async (route: string, body: unknown) => {
  const answer = await api.fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: answer.status, body: await answer.json() };
};

async function exportWithCli(id: string, format: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runBaton(["export", id, "--format", format]);
  return { status: code, stdout, stderr };
}

const isWellFormed = (text: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

describe("a title cut across an emoji", () => {
  it.each([
    ["handoff.yaml", EXAMPLE_DOCUMENTS.handoff_yaml.text.replace('goal: "Implement user authentication with JWT"', `goal: "${across(200)}"`)],
    ["handoff.json", EXAMPLE_DOCUMENTS.handoff_json.text.replace('"title": "Edit task priority from the task card"', `"title": "${across(200 - "US-042: ".length)}"`)],
    ["bundle", EXAMPLE_DOCUMENTS.bundle.text.replace('"### Summary\\n- …\\n"', `"### ${across(200)}\\n- …\\n"`)],
  ])("%s: imports, its title cut before the emoji", async (_format, text) => {
    const imported = await post("/api/import", { text });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(201);
    const title: string = imported.body.handoff.title;
    expect(isWellFormed(title)).toBe(true);
    expect(title.endsWith("a…")).toBe(true);
  });

  it("a vague instruction quoted in its warning is cut before the emoji too", async () => {
    const text = EXAMPLE_DOCUMENTS.handoff_yaml.text.replace('now: "Debugging token expiry in auth.py"', `now: "continue ${across(81 - "continue ".length)}"`);
    const imported = await post("/api/import", { text });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(201);
    const [warning] = imported.body.warnings.filter((candidate: { code: string }) => candidate.code === "vague_instruction");
    expect(warning.message).toMatch(/^"continue a+" is vague/);
  });

  it("a thread whose last entry has an emoji across handoff.yaml's 500 exports as a handoff.yaml Baton imports again", async () => {
    const created = await post("/api/handoffs", { title: "Emoji at the cut", content: "Start" });
    expect(created.status).toBe(201);
    const id: string = created.body.handoff.id;
    expect((await post(`/api/handoffs/${id}/entries`, { type: "progress", content: across(500) })).status).toBe(201);
    const exported = await exportWithCli(id, "yaml");
    expect(exported.status, exported.stderr).toBe(0);
    const again = await post("/api/import", { text: exported.stdout, fileName: "handoff.yaml" });
    expect(again.status, JSON.stringify(again.body).slice(0, 300)).toBe(201);
  }, 60_000);
});
