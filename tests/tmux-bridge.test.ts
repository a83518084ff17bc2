import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAgent, registerAgent, triggerHandoff } from "../lib/agents";
import { deliverPrompt } from "../lib/agents/tmux-bridge";

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
});

afterAll(() => {
  delete process.env.BATON_TMUX_SOCKET;
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
    const prompt = `Continuing from Agent ${agent.shortId}. Read \`${record.filePath}\` to pick up context.`;
    expect(record.injectionPrompt).toBe(prompt);
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
    expect(await deliverPrompt("nosuch:9.9", "hello")).toMatch(/^failed: .*(can't find|no such)/i);
    expect(await deliverPrompt("bad;target", "hello")).toMatch(/^failed: refused tmux target/);
    expect(await deliverPrompt(null, "hello")).toBe("no target");
  });
});
