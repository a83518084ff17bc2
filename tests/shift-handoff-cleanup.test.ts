import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDir } from "../lib/config";
import { serveApi, type ApiServer } from "./support/api-server";

// A tmux socket no server listens on: the delivery is attempted and fails, touching no one's tmux.
const tmuxSocket = `baton-test-none-${process.pid}`;
let api: ApiServer;
beforeAll(async () => {
  process.env.BATON_TMUX_SOCKET = tmuxSocket;
  api = await serveApi();
});
afterAll(async () => {
  delete process.env.BATON_TMUX_SOCKET;
  await api?.close();
});

const post = (route: string, body: unknown) => api.fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

// Once a handoff has committed, removing what earlier attempts left behind is housekeeping: it
// must not turn the committed handoff into an error, nor keep its prompt from being delivered.
describe("a shift handoff whose leftovers cannot be removed", () => {
  it("still answers 201 with its record and delivers the prompt", async () => {
    const agent = (await (await post("/api/agents", { personaSlug: "stubborn-leftover" })).json()) as { id: number; shortId: string };
    const folder = path.join(dataDir(), "personas", "stubborn-leftover", "handoffs");
    // Named as an earlier attempt's temporary file, but a folder: fs.rm without recursive refuses it.
    fs.mkdirSync(path.join(folder, `.20260101T000000-${agent.shortId}.md.0123456789ab.tmp`), { recursive: true });

    const handed = await post(`/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "nowhere:0.0" } });
    expect(handed.status).toBe(201);
    const { record } = (await handed.json()) as { record: { deliveryState: string; deliveryAttempts: number } };
    expect(record).toMatchObject({ deliveryState: "failed", deliveryAttempts: 1 });
  });
});

describe("what earlier attempts left, on either engine", () => {
  it("a handoff removes its agent's unnamed documents and temporary files, old names too, and keeps a document a record names", async () => {
    // Two agents whose ids start alike: the first's document is named as the second's would be, and its record keeps it.
    const first = (await (await post("/api/agents", { personaSlug: "leftover-engines", sessionId: "abcdef01-0000-4000-8000-000000000001" })).json()) as { id: number };
    const handed = await post(`/api/agents/${first.id}/handoff`, { reason: "shift_end", document: "## Goal\nKept.\n", successor: { sessionId: "abcdef01-0000-4000-8000-000000000002" } });
    const { record, successor } = (await handed.json()) as { record: { filePath: string }; successor: { id: number; shortId: string } };
    const kept = path.basename(record.filePath);
    const folder = path.join(dataDir(), "personas", "leftover-engines", "handoffs");
    const leftOver = [`20260101T000000-${successor.shortId}.md`, `20260101T000001-${successor.shortId}-0a0b0c0d.md`, `.20260101T000001-${successor.shortId}-0a0b0c0d.md.0123456789ab.tmp`];
    for (const name of leftOver) fs.writeFileSync(path.join(folder, name), "## Goal\nKilled.\n");

    const again = await post(`/api/agents/${successor.id}/handoff`, { reason: "shift_end", document: "## Goal\nOn.\n" });
    expect(again.status).toBe(201);
    const written = path.basename(((await again.json()) as { record: { filePath: string } }).record.filePath);
    expect(fs.readdirSync(folder).sort()).toEqual([kept, written].sort());
  });
});
