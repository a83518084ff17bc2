import "server-only";
import { shiftHandoffWithAgentIn } from "../agents/rows";
import type { Change } from "../changes";
import type { Tx } from "../database";
import { entryWithHandoffIn, findHandoffRowIn } from "../handoffs/store";
import { isoOf } from "../iso-date";
import type { Queued } from "./enqueue";

/**
 * What one change of the feed means for webhooks (nothing for most). Reads the rows it names
 * through their owners (lib/handoffs, lib/agents); they may be gone (a closed handoff's entries).
 */
export async function eventsOfChange(tx: Tx, change: Change): Promise<Queued[]> {
  if (change.subject === "entry" && change.action === "created" && change.entrySeq !== null) {
    const entry = await entryWithHandoffIn(tx, change.entrySeq);
    if (!entry) return [];
    const data = {
      handoff: { id: entry.handoff_id, title: entry.title, project: entry.project },
      entry: { number: entry.number, seq: entry.seq, answers: entry.answers, type: entry.type, from: entry.from_client, content: entry.content, createdAt: isoOf(entry.created_at) },
    };
    const queued: Queued[] = [{ event: "entry.created", entryType: entry.type, data }];
    if (entry.type === "question") queued.push({ event: "question.asked", data: { ...data, waitingFor: entry.from_client === "chat" ? "code" : "chat" } });
    return queued;
  }
  if (change.subject === "handoff" && change.action === "closed" && change.handoffId) {
    const handoff = await findHandoffRowIn(tx, change.handoffId);
    return handoff ? [{ event: "handoff.closed", data: { handoff: { id: handoff.id, title: handoff.title, project: handoff.project, closedAt: handoff.closed_at === null ? null : isoOf(handoff.closed_at) } } }] : [];
  }
  if (change.subject === "shift_handoff" && change.action === "created" && change.agentId !== null) {
    const record = await shiftHandoffWithAgentIn(tx, change.agentId);
    if (!record) return [];
    return [
      {
        event: "agent.handed_off",
        data: {
          agent: { id: record.id, name: record.name, persona: record.persona_slug, project: record.project },
          handoff: { reason: record.reason, filePath: record.file_path, createdAt: isoOf(record.created_at) },
        },
      },
    ];
  }
  return [];
}

/** Whether a change can make a delivery; the others (most: a handoff's updated_at moving) cost no write at all. */
export const mayDeliver = (change: Change) =>
  (change.subject === "entry" && change.action === "created") ||
  (change.subject === "handoff" && change.action === "closed") ||
  (change.subject === "shift_handoff" && change.action === "created");

