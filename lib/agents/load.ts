import "server-only";
import type { Tx } from "../db";
import { NotFound } from "../errors";
import type { Agent, HandoffRecord } from "../generated/prisma/client";

export function agentNotFound(ref: string | number): NotFound {
  return new NotFound(`agent ${ref} not found; check the id (an integer, a session UUID or its first 8 hex digits)`);
}

/** The agent row with its handoff record, or a NotFound naming the id. */
export async function loadAgent(tx: Tx, id: number): Promise<Agent & { handoff: HandoffRecord | null }> {
  const row = await tx.agent.findUnique({ where: { id }, include: { handoff: true } });
  if (!row) throw agentNotFound(id);
  return row;
}
