/**
 * A desk worth moving (e2e/team.spec.ts): `npm run db:seed`'s threads are written first by the
 * caller; this adds a 10,000-entry thread, an agent that handed off (a shift document) and a
 * closed thread kept as a bundle (an artifact), through the domain functions every door uses.
 * Prints what it made as JSON. Run with tsx in the desk's environment (BATON_DATA_DIR, DATABASE_URL).
 */
import { registerAgent, triggerHandoff } from "../../lib/agents";
import { closeDatabase } from "../../lib/database";
import { addEntry, createHandoff } from "../../lib/handoffs";
import { closeHandoff } from "../../lib/formats";

const entries = Number(process.argv[2] || 10_000);
const { handoff: long } = await createHandoff({ title: "A long-running thread", project: "team", content: "entry 1", asClient: "chat" });
for (let index = 2; index <= entries; index++) {
  await addEntry({ id: long.id, type: index % 50 === 0 ? "question" : "progress", content: `entry ${index}`, asClient: index % 2 ? "chat" : "code" });
}
const agent = await registerAgent({ personaSlug: "builder", name: "Builder", project: "team" });
const shift = await triggerHandoff({ agentId: agent.id, reason: "context_limit", document: "# Shift handoff\n\nThe migration is half done: tables copied, verification next." });
const { handoff: kept } = await createHandoff({ title: "Kept as a bundle", project: "team", content: "what we decided", asClient: "chat" });
const closed = await closeHandoff({ id: kept.id, archive: true });
console.log(JSON.stringify({ longId: long.id, agentId: agent.id, successorId: shift.successor.id, keptId: kept.id, artifactId: closed.artifactId }));
await closeDatabase();
