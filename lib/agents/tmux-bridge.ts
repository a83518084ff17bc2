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
 * Types `prompt` into a tmux pane and presses Enter: `send-keys -t <target> -l -- <prompt>` (literal,
 * so nothing in it is read as a key name), then `send-keys -t <target> Enter`. Never throws: the
 * outcome is what the record stores.
 */
export async function deliverPrompt(target: string | null, prompt: string): Promise<DeliveryOutcome> {
  if (!target) return "no target";
  if (!TMUX_TARGET_PATTERN.test(target)) return `failed: refused tmux target ${JSON.stringify(target.slice(0, 60))}`;
  try {
    await runTmux(["send-keys", "-t", target, "-l", "--", prompt]);
    await runTmux(["send-keys", "-t", target, "Enter"]);
    return "delivered";
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}
