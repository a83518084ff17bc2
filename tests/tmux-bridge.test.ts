import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAgent, registerAgent, triggerHandoff } from "../lib/agents";
import { databaseFile, dataDir } from "../lib/config";
import { deliverPrompt } from "../lib/agents/tmux-bridge";
import { serveApi } from "./support/api-server";
import { startHttpDoor, stopHttpDoor } from "./support/crash-rig";
import { holdSqliteLock } from "./support/sqlite-lock";

// A private tmux server (its own socket), so the test never touches a person's tmux sessions.
const socket = `baton-test-${process.pid}-${randomBytes(4).toString("hex")}`;
const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });

/** What the pane shows now, lines joined (long prompts wrap). */
function screen(target: string): string {
  return tmux("capture-pane", "-p", "-J", "-t", target);
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let socketPath = "";

beforeAll(() => {
  tmux("new-session", "-d", "-s", "baton", "-x", "220", "-y", "40", "cat");
  socketPath = tmux("display-message", "-p", "#{socket_path}").trim();
  process.env.BATON_TMUX_SOCKET = socket;
  // The agents these panes stand in for: cat (echoes what is typed), Node scripts, and sh while a spinner runs.
  process.env.BATON_AGENT_COMMANDS = "cat,node,sh";
});

afterAll(() => {
  delete process.env.BATON_TMUX_SOCKET;
  delete process.env.BATON_AGENT_COMMANDS;
  try {
    tmux("kill-server");
  } catch {
    // Already gone: nothing to stop.
  }
  // tmux leaves its socket file behind.
  if (socketPath) fs.rmSync(socketPath, { force: true });
});

describe("tmux bridge against a real tmux server", () => {
  it("a shift_end handoff types the injection prompt into the successor's pane and presses Enter", async () => {
    const agent = await registerAgent({ personaSlug: "developer-con-1", project: "baton" });
    const { record, successor } = await triggerHandoff({
      agentId: agent.id,
      reason: "shift_end",
      document: "## Goal\nShip it.\n\n## Next steps\n- run the e2e suite\n",
      successor: { tmuxTarget: "baton:0.0" },
    });
    expect(record.delivery).toBe("delivered");
    expect(successor.tmuxTarget).toBe("baton:0.0");
    const prompt = record.injectionPrompt ?? "";
    // The absolute path, so a successor in any working folder can open it.
    expect(prompt).toContain(`Continuing from Agent ${agent.shortId}. Read \`${path.join(dataDir(), record.filePath ?? "")}\` to pick up context`);
    // `cat` echoes the typed line, then prints it again once Enter arrives: two copies mean Enter was sent.
    await waitFor(() => screen("baton:0.0").split(prompt).length - 1 >= 2, "the prompt and its echo after Enter");
    expect((await getAgent({ agentId: agent.id })).handoff?.delivery).toBe("delivered");
  });

  it("text that looks like tmux key names or shell syntax arrives literally", async () => {
    tmux("new-window", "-t", "baton:", "-n", "literal", "cat");
    const text = "C-c Enter $(id) ; `ls` 'quoted' \"double\" -l --";
    expect(await deliverPrompt("baton:literal.0", text)).toBe("delivered");
    await waitFor(() => screen("baton:literal.0").includes(text), "the literal text");
    // C-c would have ended cat: the window is still there.
    expect(tmux("list-windows", "-t", "baton", "-F", "#{window_name}")).toContain("literal");
  });

  it("a target that does not exist is a recorded failure naming tmux's reason", async () => {
    expect(await deliverPrompt("nosuch:9.9", "hello")).toMatch(/^failed: no such tmux session .*\(tmux: can't find session: nosuch\)$/);
    expect(await deliverPrompt("bad;target", "hello")).toMatch(/^failed: refused tmux target/);
    expect(await deliverPrompt(null, "hello")).toBe("no target");
  });

  it("types only into an agent: a pane whose agent exited (a shell) gets nothing and the delivery fails saying how to choose another pane", async () => {
    const configured = process.env.BATON_AGENT_COMMANDS;
    delete process.env.BATON_AGENT_COMMANDS;
    try {
      // Claude Code as its process shows (`claude`), stood in for by cat under that name.
      // In the test's data folder, which its teardown removes.
      const bin = fs.mkdtempSync(path.join(process.env.BATON_DATA_DIR!, "agent-bin-"));
      fs.symlinkSync(execFileSync("sh", ["-c", "command -v cat"], { encoding: "utf8" }).trim(), path.join(bin, "claude"));
      tmux("new-window", "-t", "baton:", "-n", "agent", path.join(bin, "claude"));
      tmux("new-window", "-t", "baton:", "-n", "exited", "bash --norc --noprofile");
      const marker = path.join(bin, "ran");
      const prompt = `Continue the work: \`touch ${marker}\` is what the document quotes.`;

      const refused = await deliverPrompt("baton:exited.0", prompt);
      expect(refused).toMatch(/^failed: the pane "baton:exited\.0" runs "bash", not an agent \(claude, node\); nothing was typed: choose the agent's pane/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(screen("baton:exited.0")).not.toContain("Continue the work");
      expect(fs.existsSync(marker)).toBe(false);

      expect(await deliverPrompt("baton:agent.0", prompt)).toBe("delivered");
      await waitFor(() => screen("baton:agent.0").includes("Continue the work"), "the prompt in the agent's pane");
    } finally {
      process.env.BATON_AGENT_COMMANDS = configured;
    }
  });

  it("a dead pane (its program exited, kept by remain-on-exit) fails the handoff's delivery at once, saying to respawn it, not after waiting 15 s for it to rest", async () => {
    tmux("new-window", "-t", "baton:", "-n", "dead", "cat");
    tmux("set-option", "-w", "-t", "=baton:=dead", "remain-on-exit", "on");
    tmux("send-keys", "-t", "=baton:=dead.0", "C-d");
    await waitFor(() => tmux("display-message", "-p", "-t", "=baton:=dead.0", "#{pane_dead}").trim() === "1", "the pane's program to exit");
    const api = await serveApi();
    try {
      const post = (route: string, body: unknown) => api.fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const agent = (await (await post("/api/agents", { personaSlug: "dead-pane" })).json()) as { id: number };
      const started = Date.now();
      const handed = await post(`/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "baton:dead" } });
      expect(handed.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(5_000);
      const { record } = (await handed.json()) as { record: { deliveryState: string; delivery: string } };
      expect(record.deliveryState).toBe("failed");
      expect(record.delivery).toBe(
        'failed: the pane "baton:dead" is dead: its program has exited (tmux keeps the pane, remain-on-exit); nothing was typed: start the successor there (tmux respawn-pane) or choose another pane, then retry',
      );
    } finally {
      await api.close();
    }
  });

  it("a pane whose window has synchronize-panes on gets nothing, nor do the window's other panes (a shell among them): the delivery fails saying why", async () => {
    tmux("new-window", "-t", "baton:", "-n", "synced", "cat");
    tmux("split-window", "-t", "=baton:=synced", "bash --norc --noprofile");
    tmux("set-option", "-w", "-t", "=baton:=synced", "synchronize-panes", "on");
    const api = await serveApi();
    try {
      const post = (route: string, body: unknown) => api.fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const agent = (await (await post("/api/agents", { personaSlug: "synced-panes" })).json()) as { id: number; shortId: string };
      const handed = await post(`/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "baton:synced.0" } });
      expect(handed.status).toBe(201);
      const { record } = (await handed.json()) as { record: { deliveryState: string; delivery: string } };
      expect(record.deliveryState).toBe("failed");
      expect(record.delivery).toMatch(/^failed: the pane "baton:synced\.0" is in a window with synchronize-panes on, so what is typed would reach all 2 of its panes; nothing was typed/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const pane of ["0", "1"]) expect(screen(`=baton:=synced.${pane}`)).not.toContain(`Continuing from Agent ${agent.shortId}`);
    } finally {
      await api.close();
    }
  });

  it("a text ending in ; or \\; arrives as typed (tmux reads a trailing ; as the end of a command)", async () => {
    tmux("new-window", "-t", "baton:", "-n", "semicolons", "cat");
    for (const text of ["ends with a semicolon;", "ends with an escaped one\\;"]) {
      expect(await deliverPrompt("baton:semicolons.0", text)).toBe("delivered");
      await waitFor(() => screen("baton:semicolons.0").split("\n").includes(text), `the line ${JSON.stringify(text)}`);
    }
  });
});

describe("tmux bridge delivers only to the exact target the operator named", () => {
  // tmux alone would resolve each of these to an existing pane: `agent-1` (and `agent-10:5`'s
  // window) by prefix, `main` as a window of the current session.
  const panes = ["agent-10:main.0", "agent-10:build-2.0", "agent-10:50.0", "agent-10:main.1"];

  beforeAll(() => {
    tmux("new-session", "-d", "-s", "agent-10", "-n", "main", "-x", "120", "-y", "30", "cat");
    tmux("split-window", "-t", "agent-10:main", "cat");
    tmux("new-window", "-t", "agent-10:", "-n", "build-2", "cat");
    tmux("new-window", "-t", "agent-10:", "-n", "50", "cat");
  });

  /**
   * Fails unless `token` is on no pane: a marker typed after it into every pane (exactly) is
   * waited for first, so anything typed before it has reached the pane too.
   */
  async function expectNowhere(token: string) {
    const marker = `marker-${randomBytes(4).toString("hex")}`;
    for (const pane of panes) expect(await deliverPrompt(pane, marker)).toBe("delivered");
    await waitFor(() => panes.every((pane) => screen(pane).includes(marker)), "the marker on every pane");
    for (const pane of panes) expect(screen(pane)).not.toContain(token);
  }

  it.each([
    ["agent-1", "session", "a session whose name only starts another's"],
    ["main", "session", "a bare window name (tmux would use the current session)"],
    ["agent-10:build", "window", "a window whose name only starts another's"],
    ["agent-10:5", "window", "a window index that does not exist while a window named 50 does"],
    ["agent-10:main.2", "pane", "a pane index that does not exist"],
    ["agent-10:7.0", "window", "a window index and pane that do not exist"],
  ])("%s (%s) is a failure and types nothing anywhere: %s", async (target, kind) => {
    const token = `token-${randomBytes(4).toString("hex")}`;
    const outcome = await deliverPrompt(target, token);
    expect(outcome).toMatch(new RegExp(`^failed: no such tmux ${kind} for target "${target}"; nothing was typed anywhere \\(tmux: can't find ${kind}: `));
    await expectNowhere(token);
  });

  it("exact names, window indexes and pane indexes still reach their pane", async () => {
    const cases: [string, string][] = [
      ["agent-10", "agent-10:main.1"], // the session's current window (main) and its active pane (the split)
      ["agent-10:main", "agent-10:main.1"],
      ["agent-10:main.0", "agent-10:main.0"],
      ["agent-10:1", "agent-10:build-2.0"],
      ["agent-10:build-2.0", "agent-10:build-2.0"],
      ["agent-10:50", "agent-10:50.0"],
    ];
    tmux("select-window", "-t", "agent-10:main");
    for (const [target, pane] of cases) {
      const token = `token-${randomBytes(4).toString("hex")}`;
      expect(await deliverPrompt(target, token)).toBe("delivered");
      await waitFor(() => screen(pane).includes(token), `${target} typing into ${pane}`);
    }
  });

  it("a handoff whose successor names a missing session records the failure and leaves agent-10 alone", async () => {
    const agent = await registerAgent({ personaSlug: "developer-con-1" });
    const { record } = await triggerHandoff({
      agentId: agent.id,
      reason: "context_limit",
      document: "## Goal\nKeep going.\n",
      successor: { tmuxTarget: "agent-1" },
    });
    expect(record.delivery).toMatch(/^failed: no such tmux session for target "agent-1"; .*\(tmux: can't find session: agent-1\)$/);
    expect((await getAgent({ agentId: agent.id })).handoff?.delivery).toBe(record.delivery);
    expect(record.injectionPrompt).toContain(agent.shortId);
    await expectNowhere(record.injectionPrompt ?? "");
  });
});

describe("tmux bridge types only into a pane at rest", () => {
  // A program in raw mode (as Claude Code is) that first shows a dialog waiting for one keypress
  // ("Press any key to continue"), optionally after a spinner that says it is working, then reads
  // lines at a prompt. It logs every key the dialog took and every line the prompt took.
  const paneScript = `
import fs from "node:fs";
const [out, spinnerMs] = [process.argv[2], Number(process.argv[3] ?? 0)];
const log = (record) => fs.appendFileSync(out, JSON.stringify({ ...record, at: Date.now() }) + "\\n");
process.stdin.setRawMode(true);
let phase = "spinner";
let line = "";
const frames = "|/-\\\\";
let frame = 0;
const spin = setInterval(() => process.stdout.write("\\r" + frames[frame++ % 4] + " Working... (esc to interrupt)"), 50);
setTimeout(() => {
  clearInterval(spin);
  log({ kind: "spinner-done" });
  phase = "dialog";
  process.stdout.write("\\r\\x1b[2KPress any key to continue...");
}, spinnerMs);
process.stdin.on("data", (chunk) => {
  const text = chunk.toString("utf8");
  if (phase !== "prompt") {
    log({ kind: phase, key: text });
    if (phase === "dialog") {
      phase = "prompt";
      process.stdout.write("\\r\\x1b[2K> ");
    }
    return;
  }
  process.stdout.write(text.replace(/\\r/g, "\\r\\n"));
  for (const char of text) {
    if (char !== "\\r") { line += char; continue; }
    log({ kind: "line", line });
    line = "";
  }
});
`;
  let folder = "";
  type Logged = { kind: string; key?: string; line?: string; at: number };
  const logged = (out: string): Logged[] =>
    fs.existsSync(out) ? fs.readFileSync(out, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Logged) : [];
  /** What the pane took from its keyboard (the dialog's key, the prompt's lines). */
  const keysTaken = (out: string) => logged(out).filter((record) => record.kind !== "spinner-done");

  beforeAll(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "baton-rest-"));
    fs.writeFileSync(path.join(folder, "pane.mjs"), paneScript);
  });

  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  /** A window running the pane program, once its dialog shows (after `spinnerMs` of spinning). */
  async function paneWith(name: string, spinnerMs: number): Promise<{ target: string; out: string }> {
    const out = path.join(folder, `${name}.jsonl`);
    tmux("new-window", "-d", "-t", "baton:", "-n", name, `${process.execPath} ${path.join(folder, "pane.mjs")} ${out} ${spinnerMs}`);
    const target = `baton:${name}.0`;
    await waitFor(() => screen(target).includes(spinnerMs > 0 ? "Working..." : "Press any key"), `the ${name} pane to start`);
    return { target, out };
  }

  it("a pane showing a prompt that waits for a keypress receives nothing until it is at rest, then the whole prompt", async () => {
    const { target, out } = await paneWith("keypress", 0);
    const prompt = "Continuing from Agent 4b6f8a2c. Read the shift document to pick up context.";
    let outcome: string | null = null;
    const delivery = deliverPrompt(target, prompt, { restWaitMs: 20_000 }).then((result) => (outcome = result));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Still waiting: the dialog has taken no key, and nothing of the prompt is on the pane.
    expect(outcome).toBeNull();
    expect(keysTaken(out)).toEqual([]);
    expect(screen(target)).not.toContain("Continuing");

    // The person answers the dialog; the pane comes to rest at its prompt.
    tmux("send-keys", "-t", target, "-l", "x");
    expect(await delivery).toBe("delivered");
    const records = keysTaken(out);
    expect(records.map(({ kind, key, line }) => ({ kind, key, line }))).toEqual([
      { kind: "dialog", key: "x", line: undefined },
      { kind: "line", key: undefined, line: prompt },
    ]);
  });

  it("waits while a command is at work (a spinner, \"esc to interrupt\"), and gives up when the pane never comes to rest, typing nothing", async () => {
    const { target, out } = await paneWith("busy", 1_500);
    const started = Date.now();
    // Busy for 1.5 s, then the keypress dialog: with 4 s to wait, it never comes to rest.
    const outcome = await deliverPrompt(target, "typed too early", { restWaitMs: 4_000 });
    expect(outcome).toMatch(/^failed: the pane "baton:busy\.0" did not come to rest within 4 s \(it waits for a keypress: "Press any key to continue\.\.\.", which typed text would answer\); nothing was typed/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
    expect(logged(out).map((record) => record.kind)).toEqual(["spinner-done"]);

    tmux("send-keys", "-t", target, "-l", "y");
    expect(await deliverPrompt(target, "now at rest", { restWaitMs: 4_000 })).toBe("delivered");
    expect(logged(out).map(({ kind, key, line }) => ({ kind, key, line }))).toEqual([
      { kind: "spinner-done", key: undefined, line: undefined },
      { kind: "dialog", key: "y", line: undefined },
      { kind: "line", key: undefined, line: "now at rest" },
    ]);
  });

  it("a spinner that stops in time: the prompt is typed after it, into the prompt", async () => {
    tmux("new-window", "-d", "-t", "baton:", "-n", "spin", `sh -c 'i=0; while [ $i -lt 15 ]; do printf "\\r%s Working... (esc to interrupt)" $i; i=$((i+1)); sleep 0.1; done; printf "\\r\\033[2Kdone\\n"; exec cat'`);
    await waitFor(() => screen("baton:spin.0").includes("Working"), "the spinner");
    expect(await deliverPrompt("baton:spin.0", "after the spinner", { restWaitMs: 10_000 })).toBe("delivered");
    const shown = screen("baton:spin.0");
    expect(shown).toContain("done");
    expect(shown.indexOf("after the spinner")).toBeGreaterThan(shown.indexOf("done"));
  });

  it("a pane in copy mode waits until copy mode ends", async () => {
    tmux("new-window", "-d", "-t", "baton:", "-n", "copy", "cat");
    tmux("copy-mode", "-t", "baton:copy.0");
    const delivery = deliverPrompt("baton:copy.0", "after copy mode", { restWaitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(screen("baton:copy.0")).not.toContain("after copy mode");
    tmux("send-keys", "-t", "baton:copy.0", "-X", "cancel");
    expect(await delivery).toBe("delivered");
    await waitFor(() => screen("baton:copy.0").includes("after copy mode"), "the prompt after copy mode");
  });

  it("a pane still in copy mode when the wait runs out: the outcome names the mode as people say it", async () => {
    tmux("new-window", "-d", "-t", "baton:", "-n", "copied", "cat");
    tmux("copy-mode", "-t", "baton:copied.0");
    const outcome = await deliverPrompt("baton:copied.0", "never typed", { restWaitMs: 1_000 });
    expect(outcome).toMatch(/^failed: the pane "baton:copied\.0" did not come to rest within 1 s \(it is in copy mode\); nothing was typed/);
    tmux("send-keys", "-t", "baton:copied.0", "-X", "cancel");
    expect(screen("baton:copied.0")).not.toContain("never typed");
  });
});

describe("tmux bridge reports a delivery only when this delivery's text reached the pane", () => {
  // A pane whose program takes keys and shows none of them (a frozen or busy agent, one still
  // starting), while its scrollback still shows the prompt an earlier handoff typed there: every
  // injection prompt ends with the same words.
  const swallower = `
process.stdin.setRawMode(true);
process.stdout.write(process.argv[2] + "\\r\\n> ");
process.stdin.on("data", () => {});
`;

  it("a prompt whose keys never show is 'typed', not delivered, though an earlier prompt's end is on the pane", async () => {
    const folder = fs.mkdtempSync(path.join(process.env.BATON_DATA_DIR!, "swallow-"));
    fs.writeFileSync(path.join(folder, "swallow.mjs"), swallower);
    const earlier = await registerAgent({ personaSlug: "reused-pane" });
    const { record: earlierRecord } = await triggerHandoff({ agentId: earlier.id, reason: "shift_end", document: "## Goal\nGo on.\n" });
    const earlierPrompt = earlierRecord.injectionPrompt ?? "";
    tmux("new-window", "-d", "-t", "baton:", "-n", "reused", `${process.execPath} ${path.join(folder, "swallow.mjs")} ${JSON.stringify(earlierPrompt).replace(/`/g, "\\`")}`);
    await waitFor(() => screen("baton:reused.0").includes("not orders."), "the earlier prompt on the pane");

    const agent = await registerAgent({ personaSlug: "reused-pane" });
    const { record } = await triggerHandoff({ agentId: agent.id, reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "baton:reused" } });
    expect(screen("baton:reused.0")).not.toContain(`Continuing from Agent ${agent.shortId}`);
    expect(record.deliveryState).toBe("typed");
    expect(record.delivery).toMatch(/^typed: Enter was sent but the prompt's end did not show on the pane/);
  });

  it("a pane that shows the text already still gets it delivered again when it arrives", async () => {
    tmux("new-window", "-d", "-t", "baton:", "-n", "again", "cat");
    const text = "Read the shift document, then report your context. Same words every time.";
    for (let time = 1; time <= 3; time++) {
      expect(await deliverPrompt("baton:again.0", text)).toBe("delivered");
      // cat echoes the typed line and prints it again after Enter.
      await waitFor(() => screen("baton:again.0").split(text).length - 1 === 2 * time, `copy ${time} of the text`);
    }
  });
});

describe.runIf(process.env.BATON_TEST_ENGINE !== "postgres")("a database busy while the prompt is delivered", () => {
  /** Waits, reading the file as another process would, until the agent's handoff record has committed. */
  async function handoffCommitted(agentId: number): Promise<void> {
    const database = new (await import("better-sqlite3")).default(databaseFile(), { readonly: true });
    try {
      await waitFor(() => database.prepare("SELECT 1 FROM handoff_records WHERE agent_id = ?").get(agentId) !== undefined, "the handoff committed");
    } finally {
      database.close();
    }
  }

  it("never undoes the handoff: the answer is the committed handoff, not 'busy, nothing was stored', and the prompt is still entered", async () => {
    const door = await startHttpDoor({ BATON_BUSY_TIMEOUT_MS: "300" });
    try {
      const post = (route: string, body: unknown) => fetch(`${door.origin}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const agent = (await (await post("/api/agents", { personaSlug: "busy-delivery" })).json()) as { id: number; shortId: string };
      // The successor's pane is at work for 2 s: the handoff commits, then its delivery waits for the pane.
      tmux("new-window", "-d", "-t", "baton:", "-n", "busydb", `sh -c 'i=0; while [ $i -lt 20 ]; do printf "\\r%s Working... (esc to interrupt)" $i; i=$((i+1)); sleep 0.1; done; printf "\\r\\033[2Kready\\n"; exec cat'`);
      await waitFor(() => screen("baton:busydb.0").includes("Working"), "the successor's pane at work");
      const handed = post(`/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "baton:busydb" } });
      await handoffCommitted(agent.id);
      // Another process writes for a while, past the door's 300 ms wait, while the prompt is typed and recorded.
      const lock = await holdSqliteLock("write");
      let answer: Response;
      try {
        answer = await handed;
      } finally {
        await lock.release();
      }
      const body = (await answer.json()) as { record?: { injectionPrompt: string }; error?: { message: string } };
      expect(answer.status, JSON.stringify(body)).toBe(201);
      const prompt = body.record!.injectionPrompt;
      // cat prints the line again once Enter arrives: two copies.
      await waitFor(() => screen("baton:busydb.0").split(`Continuing from Agent ${agent.shortId}.`).length - 1 >= 2, "the prompt entered");
      expect(screen("baton:busydb.0")).toContain(prompt.slice(-40));
      expect(door.stderr()).toMatch(/baton: the typed step of handoff record \d+'s delivery could not be recorded: the database is busy/);
    } finally {
      await stopHttpDoor(door.door, "SIGTERM");
    }
  });

  it("sends Enter to the pane it typed into, though the target (a session's active pane) names another by then", async () => {
    // The successor's pane and, beside it, one where the operator has half typed a line (cat stands in for a shell: Enter would print it again).
    tmux("new-session", "-d", "-s", "pinned", "-x", "160", "-y", "20", "cat");
    tmux("split-window", "-t", "=pinned:", "cat");
    tmux("send-keys", "-t", "=pinned:.1", "-l", "half-typed-line");
    tmux("select-pane", "-t", "=pinned:.0");
    const door = await startHttpDoor({ BATON_BUSY_TIMEOUT_MS: "3000" });
    try {
      const post = (route: string, body: unknown) => fetch(`${door.origin}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const agent = (await (await post("/api/agents", { personaSlug: "pinned-pane" })).json()) as { id: number; shortId: string };
      const handed = post(`/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: "## Goal\nGo on.\n", successor: { tmuxTarget: "pinned" } });
      await handoffCommitted(agent.id);
      // The typed step waits for the database; meanwhile the operator moves to the other pane.
      const lock = await holdSqliteLock("write");
      let answer: Response;
      try {
        await waitFor(() => screen("=pinned:.0").includes(`Continuing from Agent ${agent.shortId}.`), "the prompt typed");
        tmux("select-pane", "-t", "=pinned:.1");
        answer = await handed;
      } finally {
        await lock.release();
      }
      expect(answer.status).toBe(201);
      await waitFor(() => screen("=pinned:.0").split(`Continuing from Agent ${agent.shortId}.`).length - 1 >= 2, "Enter in the successor's pane");
      expect(screen("=pinned:.1").split("half-typed-line").length - 1).toBe(1);
    } finally {
      await stopHttpDoor(door.door, "SIGTERM");
    }
  });
});
