import "server-only";
import { readTransaction } from "../db";

/** The personas and projects agents use, for the dashboard's filters. */
export type AgentFacets = { personas: string[]; projects: string[] };

export async function findAgentFacets(): Promise<AgentFacets> {
  return readTransaction(async (tx) => {
    const [personas, projects] = await Promise.all([
      tx.agent.findMany({ distinct: ["personaSlug"], select: { personaSlug: true }, orderBy: { personaSlug: "asc" } }),
      tx.agent.findMany({
        where: { project: { not: null } },
        distinct: ["project"],
        select: { project: true },
        orderBy: { project: "asc" },
      }),
    ]);
    return {
      personas: personas.map((row) => row.personaSlug),
      projects: projects.flatMap((row) => (row.project ? [row.project] : [])),
    };
  });
}
