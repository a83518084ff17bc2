import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAgent, registerAgent, retryDelivery, triggerHandoff, updateAgent } from "../lib/agents";
import { deliverPrompt } from "../lib/agents/tmux-bridge";
import { databaseNow, read, storedDate, write } from "../lib/database";
import { connectStdioClient } from "./support/mcp-clients";

// A private tmux server (its own socket), so the test never touches a person's tmux sessions.
const socket = `baton-shift-${process.pid}-${randomBytes(4).toString("hex")}`;
const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });

// The successor: a program in raw mode (as Claude Code is) that echoes what it is typed and, on
// Enter, records the line, then opens the file the line names between backticks.
const successorScript = `
import fs from "node:fs";
const out = process.argv[2];
process.stdin.setRawMode(true);
// Busy for argv[3] ms first (output changing the screen): a delivery waits for the pane to rest.
let ticks = 0;
const busy = setInterval(() => process.stdout.write("working " + ++ticks + "\\r\\n"), 100);
setTimeout(() => (clearInterval(busy), process.stdout.write("successor ready\\r\\n")), Number(process.argv[3] ?? 0));
let line = "";
process.stdin.on("data", (chunk) => {
  const text = chunk.toString("utf8");
  process.stdout.write(text.replace(/\\r/g, "\\r\\n"));
  for (const char of text) {
    if (char !== "\\r") { line += char; continue; }
    const named = /\`([^\`]+)\`/.exec(line)?.[1] ?? null;
    let opened = null;
    try { opened = named ? fs.readFileSync(named, "utf8") : null; } catch {}
    fs.appendFileSync(out, JSON.stringify({ cwd: process.cwd(), line, named, opened }) + "\\n");
    line = "";
  }
});
`;

type Received = { cwd: string; line: string; named: string | null; opened: string | null };

let workDir = "";
let socketPath = "";
let client: Client;

/**
 * Starts the successor script in its own session, in a working folder that is not the data
 * folder, and waits until it reads keys in raw mode (typed earlier, the terminal would take them
 * as a line of its own). With `busyMs` it is busy that long first, and this waits until its
 * output shows it is: an empty pane, before Node printed anything, is a pane at rest.
 */
async function startSuccessor(session: string, busyMs = 0): Promise<string> {
  const out = path.join(workDir, `${session}.jsonl`);
  tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", "-c", workDir, `${process.execPath} ${path.join(workDir, "successor.mjs")} ${out} ${busyMs}`);
  const shown = busyMs > 0 ? "working" : "successor ready";
  const deadline = Date.now() + 5000;
  while (!tmux("capture-pane", "-p", "-t", `=${session}:`).includes(shown)) {
    if (Date.now() > deadline) throw new Error(`the successor in ${session} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return out;
}

async function received(out: string, count = 1, timeoutMs = 5000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = fs.existsSync(out) ? fs.readFileSync(out, "utf8").trim().split("\n").filter(Boolean) : [];
    if (lines.length >= count) return lines.map((line) => JSON.parse(line) as Received);
    if (Date.now() > deadline) throw new Error(`the successor received ${lines.length} of ${count} lines`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-successor-"));
  fs.writeFileSync(path.join(workDir, "successor.mjs"), successorScript);
  tmux("new-session", "-d", "-s", "keep", "cat");
  socketPath = tmux("display-message", "-p", "#{socket_path}").trim();
  process.env.BATON_TMUX_SOCKET = socket;
  client = (await connectStdioClient({ args: ["--as", "code"] })).client;
}, 30_000);

afterAll(async () => {
  await client?.close();
  delete process.env.BATON_TMUX_SOCKET;
  try {
    tmux("kill-server");
  } catch {
    // Already gone.
  }
  if (socketPath) fs.rmSync(socketPath, { force: true });
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe("shift handoff delivery through a real tmux", () => {
  it("the successor finds the document by the prompt's absolute path from another folder; its MCP read and report move the record to read and acted", async () => {
    const out = await startSuccessor("succ");
    const agent = await registerAgent({ personaSlug: "developer-con-1", project: "baton" });
    const document = "## Goal\nShip delivery states.\n\n## Next steps\n- run the tmux test\n";
    const { record, successor } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document, successor: { tmuxTarget: "succ" } });
    expect(record.deliveryState).toBe("submitted");
    expect(record.delivery).toBe("delivered");
    expect(record.deliveryAttempts).toBe(1);
    expect(record.typedAt && record.submittedAt).toBeTruthy();
    expect(Date.parse(record.submittedAt!)).toBeGreaterThanOrEqual(Date.parse(record.typedAt!));

    const [line] = await received(out);
    expect(line.cwd).toBe(fs.realpathSync(workDir));
    expect(line.line).toBe(record.injectionPrompt);
    expect(path.isAbsolute(line.named!)).toBe(true);
    expect(line.opened).toBe(document);
    expect(line.line).toContain(`baton://agents/${agent.id}/handoff`);
    expect(line.line).toContain(`get_shift_document with agent ${agent.id}`);

    // A successor elsewhere fetches it by MCP, with the id the prompt gives: the agent's own, not
    // the 8 hex digits another agent's session id may start with too (any caller picks its own).
    await registerAgent({ personaSlug: "developer-con-1", sessionId: `${agent.sessionId.slice(0, 8)}-0000-4000-8000-000000000000` });
    const fetched = await client.callTool({ name: "get_shift_document", arguments: { agent: Number(/get_shift_document with agent (\d+)/.exec(line.line)![1]) } });
    expect(fetched.isError, JSON.stringify(fetched.content)).not.toBe(true);
    expect((fetched.structuredContent as { content: string }).content).toBe(document);
    let shown = (await getAgent({ agentId: agent.id })).handoff!;
    expect(shown.deliveryState).toBe("read");
    const readAt = shown.readAt;
    expect(readAt).toBeTruthy();

    // Reading the resource again (by the successor's own id) keeps the first read's time.
    const resource = await client.readResource({ uri: `baton://agents/${successor.id}/handoff` });
    expect((resource.contents[0] as { text: string }).text).toBe(document);
    expect((await getAgent({ agentId: agent.id })).handoff!.readAt).toBe(readAt);

    await updateAgent({ agentId: successor.id, contextPercent: 5 });
    shown = (await getAgent({ agentId: agent.id })).handoff!;
    expect(shown.deliveryState).toBe("acted");
    expect(shown.actedAt).toBeTruthy();
    await expect(retryDelivery({ agentId: agent.id })).rejects.toThrow(/already read/);
  }, 30_000);

  it("a 4 KB prompt arrives whole, byte for byte", async () => {
    const out = await startSuccessor("long");
    const unit = "Ünïcode-safe 4 KB prompt; `ticks` $(not run) C-c Enter ";
    let prompt = "";
    while (Buffer.byteLength(prompt + unit) <= 4096) prompt += unit;
    prompt = prompt.padEnd(prompt.length + (4096 - Buffer.byteLength(prompt)), "x");
    expect(Buffer.byteLength(prompt)).toBe(4096);
    expect(await deliverPrompt("long", prompt)).toBe("delivered");
    const [line] = await received(out);
    expect(Buffer.from(line.line)).toEqual(Buffer.from(prompt));
  }, 30_000);

  it("a missing pane is failed with tmux's reason; Retry delivery reaches it once it exists", async () => {
    const agent = await registerAgent({ personaSlug: "developer-con-2" });
    const { record } = await triggerHandoff({ agentId: agent.id, reason: "context_limit", document: "## Goal\nKeep going.\n", successor: { tmuxTarget: "later:0.0" } });
    expect(record.deliveryState).toBe("failed");
    expect(record.delivery).toMatch(/^failed: no such tmux session for target "later:0.0"; .*\(tmux: can't find session: later\)$/);
    expect(record.typedAt).toBeNull();

    const out = await startSuccessor("later");
    const retried = await retryDelivery({ agentId: agent.shortId });
    expect(retried.deliveryState).toBe("submitted");
    expect(retried.delivery).toBe("delivered");
    expect(retried.deliveryAttempts).toBe(2);
    const [line] = await received(out);
    expect(line.line).toBe(record.injectionPrompt);
    expect(line.opened).toBe("## Goal\nKeep going.\n");
  }, 30_000);

  // One machine's clock: SQLite's processes share it.
  it.runIf(process.env.BATON_TEST_ENGINE === "postgres")("Retry on another instance whose clock runs a minute and more ahead is refused while the handoff's delivery waits for the pane", async () => {
    const out = await startSuccessor("busy", 6000);
    const agent = await registerAgent({ personaSlug: "developer-con-4" });
    const handingOff = triggerHandoff({ agentId: agent.id, reason: "shift_end", document: "## Goal\nOnce.\n", successor: { tmuxTarget: "busy" } });
    // The handoff committed and its delivery waits for the pane.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const retrying = promisify(execFile)("faketime", ["-f", "+90s", process.execPath, "--import", "tsx", path.join(import.meta.dirname, "support", "retry-delivery-worker.ts"), String(agent.id)], {
      env: process.env,
    });
    const [{ record }, { stdout: retry }] = await Promise.all([handingOff, retrying, received(out, 1, 15_000)]);
    expect(record.deliveryState).toBe("submitted");
    expect(JSON.parse(retry)).toEqual({ refused: expect.stringMatching(/^agent \w+'s prompt is being delivered already \(since /) });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await received(out)).toHaveLength(1);
  }, 30_000);

  it("a delivery that outlasted its claim leaves the claim another delivery took over since: Retry stays refused while that one types", async () => {
    const out = await startSuccessor("slow", 3000);
    const agent = await registerAgent({ personaSlug: "developer-con-5" });
    const handingOff = triggerHandoff({ agentId: agent.id, reason: "shift_end", document: "## Goal\nOnce more.\n", successor: { tmuxTarget: "slow" } });
    // While the handoff's delivery waits for the pane, another delivery takes the claim over, as
    // one does once DELIVERY_CLAIM_MS has passed (a minute: written here instead of waited for).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const takenOver = await write(async (tx) => {
      const claim = storedDate(await databaseNow(tx));
      await tx.run("UPDATE handoff_records SET delivering_since = ? WHERE agent_id = ?", [claim, agent.id]);
      return claim;
    });
    const { record } = await handingOff;
    expect(record.deliveryState).toBe("submitted");
    const [{ since }] = await read((tx) => tx.all<{ since: string | null }>("SELECT delivering_since AS since FROM handoff_records WHERE agent_id = ?", [agent.id]));
    expect(since === null ? null : new Date(since).toISOString()).toBe(new Date(takenOver).toISOString());
    await expect(retryDelivery({ agentId: agent.id })).rejects.toThrow(/prompt is being delivered already/);
    expect(await received(out)).toHaveLength(1);
  }, 30_000);

  it("Retry delivery to another pane types the prompt there and makes it the successor's target", async () => {
    const agent = await registerAgent({ personaSlug: "developer-con-3" });
    const { record, successor } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: "## Goal\nElsewhere.\n", successor: { tmuxTarget: "wrong:0.0" } });
    expect(record.deliveryState).toBe("failed");
    await expect(retryDelivery({ agentId: agent.id, tmuxTarget: "not a target!" })).rejects.toThrow(/tmux/);

    const out = await startSuccessor("right");
    const retried = await retryDelivery({ agentId: agent.id, tmuxTarget: "right" });
    expect(retried.deliveryState).toBe("submitted");
    expect((await received(out))[0].line).toBe(record.injectionPrompt);
    expect((await getAgent({ agentId: successor!.id })).tmuxTarget).toBe("right");
  }, 30_000);
});
