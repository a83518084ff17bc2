import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";

/**
 * What Baton's hooks remember about one Claude Code session between its hook calls (each is a
 * process of its own): kept as a small JSON file per session under <data folder>/hooks/sessions,
 * named by a hash of the session id (the id is input: it never becomes a path itself). Files
 * older than a week are removed when another is written.
 */
export type SessionState = {
  /** Seqs of the questions the Stop hook has reminded this session of. */
  reminded: number[];
  /** The session's previous stop was blocked by Baton's reminder. */
  blockedLast: boolean;
};

const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
const folder = () => path.join(dataDir(), "hooks", "sessions");
const fileOf = (sessionId: string) => path.join(folder(), `${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}.json`);

export function readSessionState(sessionId: string): SessionState {
  try {
    const parsed = JSON.parse(fs.readFileSync(fileOf(sessionId), "utf8")) as Partial<SessionState>;
    return { reminded: Array.isArray(parsed.reminded) ? parsed.reminded.filter(Number.isInteger) : [], blockedLast: parsed.blockedLast === true };
  } catch {
    return { reminded: [], blockedLast: false };
  }
}

export function writeSessionState(sessionId: string, state: SessionState): void {
  fs.mkdirSync(folder(), { recursive: true });
  const file = fileOf(sessionId);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
  fs.renameSync(temporary, file);
  const old = Date.now() - KEEP_MS;
  for (const name of fs.readdirSync(folder())) {
    const other = path.join(folder(), name);
    if (other !== file && (fs.statSync(other, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < old) fs.rmSync(other, { force: true });
  }
}
