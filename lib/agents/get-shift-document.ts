import "server-only";
import path from "node:path";
import { z } from "zod";
import { dataDir } from "../config";
import { read, write } from "../database";
import { Conflict, NotFound } from "../errors";
import { compareWithRepository } from "../git/compare";
import { parseGitState, type Staleness } from "../git/types";
import { parseInput } from "../validation";
import { recordDocumentRead } from "./delivery";
import { loadAgent } from "./load";
import { loadShiftDocument } from "./load-shift-document";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { agentRefSchema } from "./schemas";
import { toAgentView, toHandoffRecordView } from "./rows";
import { shortIdOf, type AgentView, type HandoffRecordView } from "./views";
import { namedFolderSchema } from "../caller";

export const getShiftDocumentInput = z.object({
  agentId: agentRefSchema,
  /** The successor's working folder: the document is compared with the repository there (lib/git). */
  repoPath: namedFolderSchema.optional(),
});

export type GetShiftDocumentOptions = { agentId: string | number; repoPath?: string };

export type ShiftDocument = {
  /** The agent who wrote the document and handed off. */
  agent: AgentView;
  /** Its handoff record, after this read was recorded. */
  record: HandoffRecordView;
  /** Relative to the data folder. */
  filePath: string;
  /** Where its file is under this server's data folder (written by the instance that took the handoff; the content comes from the database). */
  absolutePath: string;
  content: string;
  /** How the successor's repository moved on since the document was written; null without git or when current. */
  staleness: Staleness | null;
};

/** The MCP resource that names an agent's shift document. */
export function shiftDocumentUri(agentId: number): string {
  return `baton://agents/${agentId}/handoff`;
}

/**
 * The shift document a successor picks up: that of the agent named, or, when the agent named
 * has not handed off, that of the agent it continues from (a successor may know only its own
 * id). This is the successor's read: the first one sets read_at and moves the delivery to read.
 */
export async function getShiftDocument(options: GetShiftDocumentOptions): Promise<ShiftDocument> {
  const input = parseInput(getShiftDocumentInput, options);
  const writer = await read(async (tx) => {
    const named = await loadAgent(tx, await resolveAgentIdIn(tx, input.agentId));
    if (named.handoff) return named;
    if (named.previous_agent_id !== null) {
      const previous = await loadAgent(tx, named.previous_agent_id);
      if (previous.handoff) return previous;
    }
    throw new NotFound(
      `agent ${shortIdOf(named.session_id)} has no shift document: it has not handed off, and it continues from no agent that did; ` +
        "give the id the injection prompt names (\"Continuing from Agent <id>\")",
    );
  });
  const shortId = shortIdOf(writer.session_id);
  const record = writer.handoff;
  if (!record) throw new NotFound(`agent ${shortId} has no shift document`);
  const document = await loadShiftDocument(record.file_path, record.id);
  if (document.status !== "ok") {
    const reasons = {
      "no path": "its handoff names no document",
      outside: "its document path leaves Baton's data folder and is refused",
      missing: `its document ${record.file_path} is missing from Baton's data folder`,
      unreadable: `its document ${record.file_path} cannot be read`,
    } as const;
    throw new Conflict(`agent ${shortId}'s shift document cannot be served: ${reasons[document.status]}`);
  }
  const absolutePath = path.resolve(dataDir(), document.filePath);
  const updated = await write((tx) => recordDocumentRead(tx, record.id, new Date()));
  const recorded = parseGitState(updated.git);
  const staleness = recorded && input.repoPath ? await compareWithRepository(recorded, input.repoPath, [document.content]) : null;
  return { agent: toAgentView(writer), record: toHandoffRecordView(updated), filePath: document.filePath, absolutePath, content: document.content, staleness };
}
