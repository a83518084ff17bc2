import "server-only";
import { toAgentView, toHandoffRecordView, type AgentView, type HandoffRecordView } from "../agents/views";

/**
 * Agents and shift handoffs read straight from SQLite (lib/sqlite.ts) for the dashboard's hot
 * reads, shown through lib/agents' own views: the columns as Prisma names them, dates as it
 * stores them (ISO text). Each query through Prisma cost tens of milliseconds on a loaded machine;
 * the attention view runs on every page.
 */
export const AGENT_COLUMNS =
  "a.id, a.session_id, a.persona_slug, a.name, a.project, a.status, a.tmux_target, a.context_percent, a.previous_agent_id, a.started_at, a.ended_at";
export const RECORD_COLUMNS =
  "r.id AS r_id, r.agent_id AS r_agent_id, r.reason AS r_reason, r.file_path AS r_file_path, r.injection_prompt AS r_injection_prompt, r.delivery AS r_delivery, r.delivery_state AS r_delivery_state, r.delivery_attempts AS r_delivery_attempts, r.typed_at AS r_typed_at, r.submitted_at AS r_submitted_at, r.read_at AS r_read_at, r.acted_at AS r_acted_at, r.created_at AS r_created_at";

export type AgentRow = {
  id: number;
  session_id: string;
  persona_slug: string;
  name: string;
  project: string | null;
  status: string;
  tmux_target: string | null;
  context_percent: number | null;
  previous_agent_id: number | null;
  started_at: string;
  ended_at: string | null;
};

export type RecordRow = {
  r_id: number;
  r_agent_id: number;
  r_reason: string;
  r_file_path: string | null;
  r_injection_prompt: string | null;
  r_delivery: string | null;
  r_delivery_state: string | null;
  r_delivery_attempts: number;
  r_typed_at: string | null;
  r_submitted_at: string | null;
  r_read_at: string | null;
  r_acted_at: string | null;
  r_created_at: string;
};

/** The rows lib/agents' views take (Prisma's, which only lib/db.ts and lib/agents name). */
type Agent = Parameters<typeof toAgentView>[0];
type HandoffRecord = Parameters<typeof toHandoffRecordView>[0];

const date = (stored: string) => new Date(stored);
const maybeDate = (stored: string | null) => (stored === null ? null : new Date(stored));

export function agentViewOf(row: AgentRow): AgentView {
  const agent: Agent = {
    id: row.id,
    sessionId: row.session_id,
    personaSlug: row.persona_slug,
    name: row.name,
    project: row.project,
    status: row.status,
    tmuxTarget: row.tmux_target,
    contextPercent: row.context_percent,
    previousAgentId: row.previous_agent_id,
    startedAt: date(row.started_at),
    endedAt: maybeDate(row.ended_at),
  };
  return toAgentView(agent);
}

export function recordViewOf(row: RecordRow): HandoffRecordView {
  const record: HandoffRecord = {
    id: row.r_id,
    agentId: row.r_agent_id,
    reason: row.r_reason,
    filePath: row.r_file_path,
    injectionPrompt: row.r_injection_prompt,
    delivery: row.r_delivery,
    deliveryState: row.r_delivery_state,
    deliveryAttempts: row.r_delivery_attempts,
    typedAt: maybeDate(row.r_typed_at),
    submittedAt: maybeDate(row.r_submitted_at),
    readAt: maybeDate(row.r_read_at),
    actedAt: maybeDate(row.r_acted_at),
    createdAt: date(row.r_created_at),
    git: null,
  };
  return toHandoffRecordView(record);
}
