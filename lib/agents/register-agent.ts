import "server-only";
import { randomUUID } from "node:crypto";
import { storedDate, write } from "../database";
import { optionalProjectSchema } from "../handoffs/schemas";
import { operationInput, parseInput } from "../validation";
import { sessionTakenConflict } from "./conflicts";
import {
  optionalContextPercentSchema,
  optionalAgentNameSchema,
  optionalSessionIdSchema,
  optionalTmuxTargetSchema,
  personaSlugSchema,
} from "./schemas";
import { AGENT_RETURNING, toAgentView, type AgentRow } from "./rows";
import type { AgentView } from "./views";
import { assertMayTypeIntoTmux, currentCaller } from "../caller";

const registerAgentInput = operationInput({
  personaSlug: personaSlugSchema,
  /** Defaults to the persona slug. */
  name: optionalAgentNameSchema,
  project: optionalProjectSchema,
  /** The agent's own session UUID (e.g. Claude Code's); a new one is made when absent. */
  sessionId: optionalSessionIdSchema,
  tmuxTarget: optionalTmuxTargetSchema,
  contextPercent: optionalContextPercentSchema,
});

export type RegisterAgentOptions = {
  personaSlug: string;
  name?: string | null;
  project?: string | null;
  sessionId?: string | null;
  tmuxTarget?: string | null;
  contextPercent?: number | string | null;
};

/** Starts an active agent at the head of a new continuity chain. */
export async function registerAgent(options: RegisterAgentOptions): Promise<AgentView> {
  const input = parseInput(registerAgentInput, options);
  if (input.tmuxTarget) assertMayTypeIntoTmux(currentCaller());
  const sessionId = input.sessionId ?? randomUUID();
  // A taken session id inserts nothing (rather than failing the statement, which on PostgreSQL would end the transaction).
  const row = await write((tx) =>
    tx.get<AgentRow>(
      `INSERT INTO agents (session_id, persona_slug, name, project, tmux_target, context_percent, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING RETURNING ${AGENT_RETURNING}`,
      [sessionId, input.personaSlug, input.name ?? input.personaSlug, input.project ?? null, input.tmuxTarget ?? null, input.contextPercent ?? null, storedDate()],
    ),
  );
  if (!row) throw sessionTakenConflict(sessionId);
  return toAgentView(row);
}
