import "server-only";
import { lockRows, type Tx } from "../database";
import { NotFound } from "../errors";
import { AGENT_COLUMNS, AGENT_WITH_RECORD, agentWithRecordOf, RECORD_COLUMNS, type AgentRow, type AgentWithRecord, type JoinedAgentRow, type RecordRow } from "./rows";

export function agentNotFound(ref: string | number): NotFound {
  return new NotFound(`agent ${ref} not found; check the id (an integer, a session UUID or its first 8 hex digits)`);
}

/** The agent row with its handoff record, or a NotFound naming the id. */
export async function loadAgent(tx: Tx, id: number): Promise<AgentWithRecord> {
  const row = await tx.get<JoinedAgentRow>(`${AGENT_WITH_RECORD} WHERE a.id = ?`, [id]);
  if (!row) throw agentNotFound(id);
  return agentWithRecordOf(row);
}

/**
 * The agent with its record, its row locked until the transaction ends (FOR UPDATE on
 * PostgreSQL, the write transaction itself on SQLite): for a transaction that decides on the
 * agent's state, then writes it (ending it, handing off, updating it). A writer waiting on the
 * lock reads what the one before it committed. Only a handoff creates a record, and it holds
 * this lock, so the record is read unlocked.
 */
export async function lockAgent(tx: Tx, id: number): Promise<AgentWithRecord> {
  const agent = await tx.get<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.id = ?${lockRows(tx)}`, [id]);
  if (!agent) throw agentNotFound(id);
  const handoff = await tx.get<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM handoff_records r WHERE r.agent_id = ?`, [id]);
  return { ...agent, handoff: handoff ?? null };
}
