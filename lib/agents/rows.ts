import "server-only";
import type { Tx } from "../database";
import { isoOf } from "../iso-date";
import { deliveryProblemOf, type DeliveryState } from "./delivery-states";
import type { AgentStatus, ShiftHandoffReason } from "./schemas";
import { shortIdOf, type AgentDetail, type AgentView, type DeliveryOutcome, type HandoffRecordView } from "./views";

/**
 * The `agents` and `handoff_records` rows as both engines return them (column names, dates as
 * the stored `2026-11-22T06:54:51.471+00:00`), the column lists that select them, and their views.
 * lib/agents writes these tables; lib/dashboard reads them through the same lists.
 */
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

/** A handoff record without its document (read only where it is served: load-shift-document.ts). */
export type RecordRow = {
  id: number;
  agent_id: number;
  reason: string;
  file_path: string | null;
  injection_prompt: string | null;
  delivery: string | null;
  delivery_state: string | null;
  delivery_attempts: number;
  typed_at: string | null;
  submitted_at: string | null;
  read_at: string | null;
  acted_at: string | null;
  created_at: string;
  git: string | null;
  /** Read with the record (SUCCESSOR_STATUS): its successor's status now, null when it has none. */
  successor_status: string | null;
};

export type AgentWithRecord = AgentRow & { handoff: RecordRow | null };

const AGENT_FIELDS = ["id", "session_id", "persona_slug", "name", "project", "status", "tmux_target", "context_percent", "previous_agent_id", "started_at", "ended_at"] as const;
const RECORD_FIELDS = [
  "id",
  "agent_id",
  "reason",
  "file_path",
  "injection_prompt",
  "delivery",
  "delivery_state",
  "delivery_attempts",
  "typed_at",
  "submitted_at",
  "read_at",
  "acted_at",
  "created_at",
  "git",
] as const;

/**
 * The status of the successor of the record on `alias` (the first, as Retry delivers to it): every
 * read of a record carries it, as whether its prompt can still be delivered depends on it.
 */
const successorStatusOf = (alias: string) => `(SELECT s.status FROM agents s WHERE s.previous_agent_id = ${alias}.agent_id ORDER BY s.id LIMIT 1)`;
/** A record's own columns, and the one read with it. */
const RECORD_KEYS = [...RECORD_FIELDS, "successor_status"] as const;

/** An agent's columns on the alias `a`. */
export const AGENT_COLUMNS = AGENT_FIELDS.map((field) => `a.${field}`).join(", ");
/** A record's columns on the alias `r`. */
export const RECORD_COLUMNS = `${RECORD_FIELDS.map((field) => `r.${field}`).join(", ")}, ${successorStatusOf("r")} AS successor_status`;
/** An agent's columns for RETURNING (which names the written table's columns unqualified). */
export const AGENT_RETURNING = AGENT_FIELDS.join(", ");
/** A record's columns for RETURNING. */
export const RECORD_RETURNING = `${RECORD_FIELDS.join(", ")}, ${successorStatusOf("handoff_records")} AS successor_status`;
/** A record's columns on `r` named `r_<column>`, beside an agent's in one row (a LEFT JOIN). */
export const JOINED_RECORD_COLUMNS = `${RECORD_FIELDS.map((field) => `r.${field} AS r_${field}`).join(", ")}, ${successorStatusOf("r")} AS r_successor_status`;
/** An agent with its record: `FROM agents a LEFT JOIN handoff_records r ON r.agent_id = a.id`. */
export const AGENT_WITH_RECORD = `SELECT ${AGENT_COLUMNS}, ${JOINED_RECORD_COLUMNS} FROM agents a LEFT JOIN handoff_records r ON r.agent_id = a.id`;

/** A row of AGENT_WITH_RECORD. */
export type JoinedAgentRow = AgentRow & { [K in (typeof RECORD_KEYS)[number] as `r_${K}`]: RecordRow[K] | null };

/** The record of a row selected with JOINED_RECORD_COLUMNS, or null when the agent has none. */
export function joinedRecordOf(row: Record<string, unknown>): RecordRow | null {
  if (row.r_id === null || row.r_id === undefined) return null;
  return Object.fromEntries(RECORD_KEYS.map((field) => [field, row[`r_${field}`]])) as RecordRow;
}

/** A row selected with AGENT_WITH_RECORD (or AGENT_COLUMNS with JOINED_RECORD_COLUMNS). */
export function agentWithRecordOf(row: JoinedAgentRow): AgentWithRecord {
  const agent = Object.fromEntries(AGENT_FIELDS.map((field) => [field, row[field]])) as AgentRow;
  return { ...agent, handoff: joinedRecordOf(row) };
}

/**
 * `IN <this>` with one parameter, a JSON array of integer ids: one statement text whatever the
 * list's length (a placeholder per id would prepare a statement per length).
 */
export function idListSql(tx: Tx): string {
  return tx.engine === "postgres" ? "(SELECT CAST(value AS INTEGER) FROM json_array_elements_text(CAST(? AS json)))" : "(SELECT value FROM json_each(?))";
}

/** `IN <this>` with one parameter, a JSON array of strings (as idListSql does for ids). */
export function textListSql(tx: Tx): string {
  return tx.engine === "postgres" ? "(SELECT value FROM json_array_elements_text(CAST(? AS json)))" : "(SELECT value FROM json_each(?))";
}

/**
 * The agent list's filters as conditions on an alias (`a`, or `s` for a successor), joined with
 * AND; null when no filter is set.
 */
export function agentFilterSql(alias: string, filters: { status?: string; persona?: string; project?: string }): { sql: string; values: string[] } | null {
  const conditions: string[] = [];
  const values: string[] = [];
  for (const [column, value] of [
    ["status", filters.status],
    ["persona_slug", filters.persona],
    ["project", filters.project],
  ] as const) {
    if (value === undefined) continue;
    conditions.push(`${alias}.${column} = ?`);
    values.push(value);
  }
  return conditions.length ? { sql: conditions.join(" AND "), values } : null;
}

const maybeIsoOf = (stored: string | null) => (stored === null ? null : isoOf(stored));

export function toAgentView(row: AgentRow): AgentView {
  return {
    id: row.id,
    sessionId: row.session_id,
    shortId: shortIdOf(row.session_id),
    personaSlug: row.persona_slug,
    name: row.name,
    project: row.project,
    status: row.status as AgentStatus,
    tmuxTarget: row.tmux_target,
    contextPercent: row.context_percent,
    previousAgentId: row.previous_agent_id,
    startedAt: isoOf(row.started_at),
    endedAt: maybeIsoOf(row.ended_at),
  };
}

export function toHandoffRecordView(row: RecordRow): HandoffRecordView {
  const view = {
    id: row.id,
    agentId: row.agent_id,
    reason: row.reason as ShiftHandoffReason,
    filePath: row.file_path,
    injectionPrompt: row.injection_prompt,
    delivery: row.delivery as DeliveryOutcome | null,
    deliveryState: row.delivery_state as DeliveryState | null,
    deliveryAttempts: row.delivery_attempts,
    typedAt: maybeIsoOf(row.typed_at),
    submittedAt: maybeIsoOf(row.submitted_at),
    readAt: maybeIsoOf(row.read_at),
    actedAt: maybeIsoOf(row.acted_at),
    createdAt: isoOf(row.created_at),
    successorStatus: row.successor_status as AgentStatus | null,
  };
  return { ...view, deliveryProblem: deliveryProblemOf(view) };
}

export function toAgentDetail(row: AgentWithRecord): AgentDetail {
  return { ...toAgentView(row), handoff: row.handoff ? toHandoffRecordView(row.handoff) : null };
}

/** An agent's shift handoff with the agent's name, persona and project, or undefined: what a webhook event says of it. */
export async function shiftHandoffWithAgentIn(
  tx: Tx,
  agentId: number,
): Promise<{ id: number; name: string; persona_slug: string; project: string | null; reason: string; file_path: string | null; created_at: string } | undefined> {
  return tx.get("SELECT a.id, a.name, a.persona_slug, a.project, r.reason, r.file_path, r.created_at FROM handoff_records r JOIN agents a ON a.id = r.agent_id WHERE r.agent_id = ?", [agentId]);
}
