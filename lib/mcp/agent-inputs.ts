import { z } from "zod";

/** Argument schemas of the agent tools; lib/agents validates every value again. */
export const agentRefArg = z
  .union([z.number().int(), z.string()], {
    error: "agent is required: give its integer id, its session UUID or the first 8 hex digits of its session id",
  })
  .describe("The agent: its integer id (e.g. 12), its session UUID, or the first 8 hex digits of its session id");

export const contextPercentArg = z
  .number({ error: "percent must be a number from 0 to 100" })
  .describe("How much of your context window is used, 0–100");
