import "server-only";
import { read } from "../database";

/** The personas and projects agents use, for the dashboard's filters. */
export type AgentFacets = { personas: string[]; projects: string[] };

export async function findAgentFacets(): Promise<AgentFacets> {
  return read(async (tx) => {
    const personas = await tx.rows<[string]>("SELECT DISTINCT persona_slug FROM agents ORDER BY persona_slug");
    const projects = await tx.rows<[string]>("SELECT DISTINCT project FROM agents WHERE project IS NOT NULL ORDER BY project");
    return { personas: personas.map(([persona]) => persona), projects: projects.map(([project]) => project) };
  });
}
