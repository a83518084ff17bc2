import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { isUniqueViolation, writeTransaction } from "../db";
import { optionalProjectSchema } from "../handoffs/schemas";
import { parseInput } from "../validation";
import { sessionTakenConflict } from "./conflicts";
import {
  optionalContextPercentSchema,
  optionalAgentNameSchema,
  optionalSessionIdSchema,
  optionalTmuxTargetSchema,
  personaSlugSchema,
} from "./schemas";
import { toAgentView, type AgentView } from "./views";
import { assertMayTypeIntoTmux, currentCaller } from "../caller";

const registerAgentInput = z.object({
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
  try {
    const row = await writeTransaction((tx) =>
      tx.agent.create({
        data: {
          sessionId,
          personaSlug: input.personaSlug,
          name: input.name ?? input.personaSlug,
          project: input.project ?? null,
          tmuxTarget: input.tmuxTarget ?? null,
          contextPercent: input.contextPercent ?? null,
          startedAt: new Date(),
        },
      }),
    );
    return toAgentView(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw sessionTakenConflict(sessionId);
    throw error;
  }
}
