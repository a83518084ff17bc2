import "server-only";
import { execFile } from "node:child_process";
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

function runTmux(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // execFile: no shell; every argument reaches tmux as it is.
    execFile("tmux", [...serverArgs(), ...args], { timeout: TMUX_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const code = (error as NodeJS.ErrnoException).code;
      const firstLine = String(stderr).trim().split("\n")[0];
      if (code === "ENOENT") return reject(new Error("tmux is not installed on the server"));
      if (error.killed) return reject(new Error(`tmux did not answer within ${TMUX_TIMEOUT_MS / 1000} s`));
      reject(new Error(firstLine || error.message));
    });
  });
}

/**
 * Types `prompt` into exactly the pane `target` names and presses Enter: `send-keys -t
 * =<session>:=<window>.<pane> -l -- <prompt>` (literal, so nothing in it is read as a key name),
 * then `send-keys … Enter`. A target that does not exist is a failure naming tmux's reason, never
 * a delivery to a pane whose name merely starts the same. Never throws: the outcome is what the
 * record stores.
 */
export async function deliverPrompt(target: string | null, prompt: string): Promise<DeliveryOutcome> {
  if (!target) return "no target";
  if (!TMUX_TARGET_PATTERN.test(target)) return `failed: refused tmux target ${JSON.stringify(target.slice(0, 60))}`;
  const exact = exactTarget(target);
  try {
    await runTmux(["send-keys", "-t", exact, "-l", "--", literalArgument(prompt)]);
    await runTmux(["send-keys", "-t", exact, "Enter"]);
    return "delivered";
  } catch (error) {
    return `failed: ${describeFailure(target, (error as Error).message)}`;
  }
}
