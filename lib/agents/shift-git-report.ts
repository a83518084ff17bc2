import "server-only";
import { read } from "../database";
import { reportOnThisMachine } from "../git/compare";
import { parseGitState, type GitReport } from "../git/types";

/**
 * Where an agent's shift handoff stands in git, for the agent page: the state recorded at
 * trigger_handoff compared with that repository when it is on this machine, else what the agent
 * reported; null when nothing was recorded. `document` is the shift document, whose file paths count.
 */
export async function shiftGitReport(recordId: number, document: string | null): Promise<GitReport | null> {
  const record = await read((tx) => tx.get<{ git: string | null }>("SELECT git FROM handoff_records WHERE id = ?", [recordId]));
  const recorded = parseGitState(record?.git);
  return recorded ? reportOnThisMachine(recorded, document ? [document] : []) : null;
}
