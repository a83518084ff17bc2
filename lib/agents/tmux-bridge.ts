import "server-only";
import { execFile } from "node:child_process";
import { visibleControls } from "../validation";
import { TMUX_TARGET_PATTERN } from "./schemas";
import type { DeliveryOutcome } from "./views";

const TMUX_TIMEOUT_MS = 5_000;
const SOCKET_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * tmux's global arguments: `-L <name>` when BATON_TMUX_SOCKET names a private server (tests use
 * one so they never touch a person's own tmux), nothing otherwise (the default server).
 */
function serverArgs(): string[] {
  const socket = process.env.BATON_TMUX_SOCKET?.trim();
  if (!socket) return [];
  if (!SOCKET_NAME_PATTERN.test(socket)) {
    throw new Error(`BATON_TMUX_SOCKET ${JSON.stringify(socket)} must be a socket name (letters, digits, . _ -), not a path`);
  }
  return ["-L", socket];
}

/**
 * The operator's `session[:window[.pane]]` in tmux's exact form, `=session:=window.pane`. Without
 * the `=`, tmux falls back to prefix and fnmatch matching (`agent-1` finds `agent-10`, window `1`
 * finds a window named `1x`) and reads a bare name as a window of whatever session is current;
 * with it, a name matches only itself. Window indexes stay exact with `=`, and a pane is only
 * ever an index. A session alone means its current window's active pane (`=session:`).
 */
function exactTarget(target: string): string {
  const colon = target.indexOf(":");
  if (colon === -1) return `=${target}:`;
  return `=${target.slice(0, colon)}:=${target.slice(colon + 1)}`;
}

/**
 * The pane `exact` names now, by its id (`%12`). A delivery names it so from then on: what it
 * checked (at rest, an agent), typed into, pressed Enter in and read back is one pane, whatever the
 * target comes to name meanwhile (a session's active pane once the operator moves to another, a
 * pane index once a pane before it closes), where Enter would run another pane's half-typed line.
 */
async function paneOf(exact: string): Promise<string> {
  // display-message alone answers for the current pane when the target is missing: capture-pane
  // (one line) fails then with tmux's reason, and in one command sequence the second never runs.
  const answer = await runTmux(["capture-pane", "-p", "-S", "0", "-E", "0", "-t", exact, ";", "display-message", "-p", "-t", exact, "#{pane_id}"]);
  const id = answer.trimEnd().split("\n").at(-1) ?? "";
  if (!/^%\d+$/.test(id)) throw new Error(`tmux named no pane for the target (it answered ${JSON.stringify(id.slice(0, 40))})`);
  return id;
}

/**
 * tmux reads an argument ending in `;` as the end of a command (and `\;` at the end as a literal
 * `;`), even after `--`: the text's own last `;` is escaped so it arrives as typed.
 */
function literalArgument(text: string): string {
  return text.endsWith(";") ? `${text.slice(0, -1)}\\;` : text;
}

/** tmux's one-line reason, said in Baton's words when the target is not there. */
function describeFailure(target: string, reason: string): string {
  const missing = /can't find (session|window|pane)/i.exec(reason);
  if (missing) return `no such tmux ${missing[1].toLowerCase()} for target ${JSON.stringify(target)}; nothing was typed anywhere (tmux: ${reason})`;
  if (/no server running|error connecting/i.test(reason)) return `no tmux server is running for this user (tmux: ${reason})`;
  return reason;
}

function runTmux(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // execFile: no shell; every argument reaches tmux as it is.
    execFile("tmux", [...serverArgs(), ...args], { timeout: TMUX_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(String(stdout));
      const code = (error as NodeJS.ErrnoException).code;
      const firstLine = String(stderr).trim().split("\n")[0];
      if (code === "ENOENT") return reject(new Error("tmux is not installed on the server"));
      if (error.killed) return reject(new Error(`tmux did not answer within ${TMUX_TIMEOUT_MS / 1000} s`));
      reject(new Error(firstLine || error.message));
    });
  });
}

/**
 * Characters per `send-keys -l`: tmux carries a command to its server in one message of at most
 * 16 KiB, so a long prompt goes in pieces (split between code points, never inside one).
 */
export const SEND_CHUNK_CHARS = 1000;
/** How long after Enter the prompt's end may take to show on the pane. */
const SUBMIT_CHECK_MS = 3_000;
const SUBMIT_POLL_MS = 100;
/** Non-blank characters from the prompt's end looked for on the pane. */
const TAIL_CHARS = 48;

function chunksOf(text: string): string[] {
  const points = Array.from(text);
  const chunks: string[] = [];
  for (let at = 0; at < points.length; at += SEND_CHUNK_CHARS) chunks.push(points.slice(at, at + SEND_CHUNK_CHARS).join(""));
  return chunks;
}

/** Whitespace is dropped on both sides: the pane wraps long lines wherever it likes. */
const squeezed = (text: string) => text.replace(/\s+/g, "");

/** Lines of history read back with the screen when the prompt's end is looked for. */
const READ_BACK_LINES = 200;

/** Where a read-back starts: the history's length then, and how often the prompt's end showed. */
type ReadBack = { historySize: number; tailCount: number };

/**
 * How often the pane (screen and recent history, wrapped lines joined) shows `tail`, read from
 * the first line `since` read (when given), however many lines were added below it since. Every
 * injection prompt ends with the same words: one an earlier handoff typed into this pane may still
 * be on it, so a delivery counts only a showing more than before it typed. (A history at its
 * limit drops its top lines as lines come and stays as long: then the read starts as many lines
 * later, and an earlier showing in those lines is missed, a delivery said typed, not submitted.)
 */
async function readBack(exact: string, tail: string, since?: ReadBack): Promise<ReadBack> {
  const historySize = Number((await runTmux(["display-message", "-p", "-t", exact, "#{history_size}"])).trim()) || 0;
  const added = since ? Math.max(0, historySize - since.historySize) : 0;
  const shown = await runTmux(["capture-pane", "-p", "-J", "-S", String(-(READ_BACK_LINES + added)), "-t", exact]);
  return { historySize, tailCount: squeezed(shown).split(tail).length - 1 };
}

/**
 * A pane takes typed text only when it is at rest: typed into a dialog, the text would answer it
 * (a keypress prompt takes the first character, a menu the Enter), and typed while a command
 * runs it lands in that command's input. So before typing, the pane is read (its mode, and the
 * last lines of its screen) until it is at rest, for at most REST_WAIT_MS:
 * - not in a mode (copy mode, a choose-tree, …);
 * - no dialog on the last lines: a keypress prompt, a yes/no question, a numbered menu (`❯ 1.`),
 *   "Enter to confirm / Esc to cancel" (Claude Code's permission and trust dialogs), a password
 *   prompt; a question in a model's last answer is no dialog (the successor is at its prompt);
 * - no command at work: Claude Code's "esc to interrupt", or a screen still changing between two
 *   reads REST_POLL_MS apart (output arriving, a spinner).
 */
export const REST_WAIT_MS = 15_000;
const REST_POLL_MS = 200;
/** Lines of the visible screen, from the bottom, where a dialog or a busy indicator is looked for. */
const REST_LINES = 10;

const DIALOGS: [RegExp, string][] = [
  [/\b(?:press|hit) any key\b|\bany key to continue\b|\bpress (?:enter|return) to (?:continue|proceed)\b/i, "waits for a keypress"],
  [/\[y\/n\]|\(y\/n\)|\[yes\/no\]|\(yes\/no\)/i, "asks yes or no"],
  [/\b(?:enter|return) to (?:confirm|select)\b|\besc(?:ape)? to (?:cancel|exit|go back|close)\b/i, "shows a dialog"],
  [/^\s*[❯›]\s*\d+\.\s/, "shows a numbered menu"],
  [/\b(?:password|passphrase)\b[^:]*:\s*$/i, "asks for a password"],
];
const BUSY: [RegExp, string][] = [[/\besc to interrupt\b/i, "is working (it shows \"esc to interrupt\")"]];

/** Why the pane is not at rest, from its state and screen; null when nothing holds it. */
function heldBy(state: string, screen: string): string | null {
  const [inMode, mode] = state.trim().split("\t");
  // tmux names the mode with its suffix (copy-mode, view-mode): said as "copy mode", not "copy-mode mode".
  if (inMode === "1") return `it is in ${mode ? mode.replace(/-mode$/, "") : "a"} mode`;
  const lines = screen.split("\n").filter((line) => line.trim() !== "").slice(-REST_LINES);
  for (const [patterns, kind] of [[DIALOGS, "dialog"], [BUSY, "busy"]] as const) {
    for (const [pattern, what] of patterns) {
      const line = lines.find((text) => pattern.test(text));
      if (line) return `it ${what}: ${JSON.stringify(visibleControls(line.trim()).slice(0, 80))}${kind === "dialog" ? ", which typed text would answer" : ""}`;
    }
  }
  return null;
}

/** Where waiting for a pane ended: at rest (null), held still when the wait ran out, or gone for good. */
type Unrested = { held: string } | { gone: string } | null;

/**
 * Waits until the pane is at rest; null then, else why it still was not when `waitMs` ran out. A
 * pane whose program has exited (kept by remain-on-exit) never comes to rest: that is said at once.
 */
async function waitForRest(exact: string, waitMs: number): Promise<Unrested> {
  const deadline = Date.now() + waitMs;
  let previous: string | null = null;
  for (;;) {
    const [state, screen] = await Promise.all([
      runTmux(["display-message", "-p", "-t", exact, "#{pane_in_mode}\t#{pane_mode}\t#{pane_dead}"]),
      runTmux(["capture-pane", "-p", "-t", exact]),
    ]);
    if (state.trim().split("\t")[2] === "1") return { gone: "its program has exited (tmux keeps the pane, remain-on-exit)" };
    const held = heldBy(state, screen) ?? (previous !== null && previous !== screen ? "its screen is still changing (a command at work)" : null);
    if (!held && previous !== null) return null;
    if (Date.now() >= deadline) return { held: held ?? "its screen kept changing" };
    previous = screen;
    await new Promise((resolve) => setTimeout(resolve, REST_POLL_MS));
  }
}

/**
 * What a pane's foreground process may be for Baton to type into it (`#{pane_current_command}`):
 * the agents, `BATON_AGENT_COMMANDS` (comma-separated) or by default Claude Code, which shows as
 * `claude` (or `node` when it runs as a Node script). A pane whose agent exited shows its shell,
 * and a shell would run what a prompt quotes in backticks.
 */
export function agentCommands(): string[] {
  const configured = process.env.BATON_AGENT_COMMANDS?.split(",").map((name) => name.trim()).filter(Boolean);
  return configured?.length ? configured : ["claude", "node"];
}

/**
 * Why the pane may not be typed into, or null when it may: its foreground process must be an
 * agent, and its window must not have synchronize-panes on with other panes (tmux then types
 * every key into all of them, a shell's included, whatever they run).
 */
async function notAnAgent(exact: string, target: string): Promise<string | null> {
  const [running, synchronized, panes] = (await runTmux(["display-message", "-p", "-t", exact, "#{pane_current_command}\t#{?synchronize-panes,on,off}\t#{window_panes}"]))
    .trim()
    .split("\t");
  const agents = agentCommands();
  if (!agents.includes(running)) {
    return `the pane ${JSON.stringify(target)} runs ${JSON.stringify(running.slice(0, 40))}, not an agent (${agents.join(", ")}); nothing was typed: choose the agent's pane as the target (Retry in the dashboard), or add its command to BATON_AGENT_COMMANDS`;
  }
  if (synchronized === "on" && Number(panes) > 1) {
    return `the pane ${JSON.stringify(target)} is in a window with synchronize-panes on, so what is typed would reach all ${panes} of its panes; nothing was typed: turn it off (tmux set-window-option synchronize-panes off) or move the successor to a window of its own, then retry`;
  }
  return null;
}

/** Where one delivery attempt got: the step reached and when, or tmux's reason for failing. */
export type PromptDelivery =
  | { step: "no target" }
  | { step: "failed"; reason: string }
  | { step: "typed"; typedAt: Date; reason: string }
  | { step: "submitted"; typedAt: Date; submittedAt: Date };

export type SendOptions = { /** How long to wait for the pane to come to rest (default REST_WAIT_MS). */ restWaitMs?: number };

/**
 * Types `prompt` into exactly the pane `target` names (`=<session>:=<window>.<pane>`, resolved once
 * to the pane's id, paneOf; `send-keys -t %<id> -l -- <text>`, literal so nothing in it is read as
 * a key name, in pieces of SEND_CHUNK_CHARS)
 * once the pane is at rest (see REST_WAIT_MS), presses Enter, then reads the pane back
 * (`capture-pane`) until the prompt's end shows once more than before it was typed. A target that does not exist, or a pane that
 * does not come to rest in time, is a failure with its reason and nothing typed, never a delivery
 * to a pane whose name merely starts the same, nor to a pane whose foreground process is not an
 * agent (agentCommands: a shell would run the prompt) or whose window types into all its panes. `onTyped` runs once the whole text was accepted,
 * before Enter. Never throws: the outcome is what the record stores.
 */
export async function sendPrompt(
  target: string | null,
  prompt: string,
  onTyped?: (at: Date) => Promise<void>,
  options: SendOptions = {},
): Promise<PromptDelivery> {
  if (!target) return { step: "no target" };
  if (!TMUX_TARGET_PATTERN.test(target)) return { step: "failed", reason: `refused tmux target ${JSON.stringify(target.slice(0, 60))}` };
  const restWaitMs = options.restWaitMs ?? REST_WAIT_MS;
  const tail = squeezed(prompt).slice(-TAIL_CHARS);
  let pane: string;
  let typedAt: Date;
  let before: ReadBack;
  try {
    pane = await paneOf(exactTarget(target));
    const unrested = await waitForRest(pane, restWaitMs);
    if (unrested && "gone" in unrested) {
      return {
        step: "failed",
        reason: `the pane ${JSON.stringify(target)} is dead: ${unrested.gone}; nothing was typed: start the successor there (tmux respawn-pane) or choose another pane, then retry`,
      };
    }
    if (unrested) {
      return { step: "failed", reason: `the pane ${JSON.stringify(target)} did not come to rest within ${restWaitMs / 1000} s (${unrested.held}); nothing was typed: retry once it is free` };
    }
    const refusal = await notAnAgent(pane, target);
    if (refusal) return { step: "failed", reason: refusal };
    before = await readBack(pane, tail);
    for (const chunk of chunksOf(prompt)) await runTmux(["send-keys", "-t", pane, "-l", "--", literalArgument(chunk)]);
    typedAt = new Date();
    await onTyped?.(typedAt);
    await runTmux(["send-keys", "-t", pane, "Enter"]);
  } catch (error) {
    return { step: "failed", reason: describeFailure(target, (error as Error).message) };
  }
  const deadline = Date.now() + SUBMIT_CHECK_MS;
  try {
    for (;;) {
      if ((await readBack(pane, tail, before)).tailCount > before.tailCount) return { step: "submitted", typedAt, submittedAt: new Date() };
      if (Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, SUBMIT_POLL_MS));
    }
  } catch (error) {
    return { step: "typed", typedAt, reason: `the pane could not be read back (tmux: ${(error as Error).message})` };
  }
  return { step: "typed", typedAt, reason: `Enter was sent but the prompt's end did not show on the pane within ${SUBMIT_CHECK_MS / 1000} s` };
}

/** The delivery in the record's words. */
export function outcomeOf(delivery: PromptDelivery): DeliveryOutcome {
  switch (delivery.step) {
    case "no target":
      return "no target";
    case "failed":
      return `failed: ${delivery.reason}`;
    case "typed":
      return `typed: ${delivery.reason}`;
    case "submitted":
      return "delivered";
  }
}

/** sendPrompt's outcome in words: "delivered", "typed: …", "failed: …" or "no target". */
export async function deliverPrompt(target: string | null, prompt: string, options: SendOptions = {}): Promise<DeliveryOutcome> {
  return outcomeOf(await sendPrompt(target, prompt, undefined, options));
}
