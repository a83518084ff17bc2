import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent, triggerHandoff, updateAgent, type AgentView } from "../lib/agents";
import { findAgentChains } from "../lib/dashboard/find-agent-chains";
import { findAttention } from "../lib/dashboard/find-attention";
import { readBundle } from "../lib/dashboard/read-kept-bundle";
import { addEntry, createHandoff, markRead } from "../lib/handoffs";
import { closeHandoff } from "../lib/formats";

/** lib/dashboard: the desk's own queries (issue 17), on a real database through the domain's doors. */
const DOCUMENT = "## Goal\nKeep going.\n";
const previousSocket = process.env.BATON_TMUX_SOCKET;

beforeAll(() => {
  // A tmux server nobody runs: a delivery to any target fails, as to a pane that is gone.
  process.env.BATON_TMUX_SOCKET = `baton-absent-${process.pid}`;
});
afterAll(() => {
  if (previousSocket === undefined) delete process.env.BATON_TMUX_SOCKET;
  else process.env.BATON_TMUX_SOCKET = previousSocket;
});

async function chainOf(length: number, personaSlug: string, lastTarget?: string): Promise<AgentView[]> {
  const agents = [await registerAgent({ personaSlug, project: "desk" })];
  while (agents.length < length) {
    const last = agents.length === length - 1;
    const successor = { tmuxTarget: last ? lastTarget : undefined };
    agents.push((await triggerHandoff({ agentId: agents.at(-1)!.id, reason: "shift_end", document: DOCUMENT, successor })).successor);
  }
  return agents;
}

describe("findAgentChains", () => {
  it("lists a chain once, by its latest agent, predecessors newest first; filters pick the latest they keep", async () => {
    const [first, second, third] = await chainOf(3, "grouped");
    const all = await findAgentChains({ persona: "grouped" });
    expect(all.total).toBe(1);
    expect(all.chains[0].latest.id).toBe(third.id);
    expect(all.chains[0].predecessors.map((agent) => agent.id)).toEqual([second.id, first.id]);
    expect(all.chains[0].length).toBe(3);

    const ended = await findAgentChains({ persona: "grouped", status: "ended" });
    expect(ended.chains.map((chain) => chain.latest.id)).toEqual([second.id]);
    expect(ended.chains[0].predecessors.map((agent) => agent.id)).toEqual([first.id]);
    expect(ended.chains[0].length).toBe(3);
  });

  it("flags a shift prompt that did not arrive on both agents", async () => {
    const [, from, to] = await chainOf(3, "undelivered", "nowhere:0.0");
    const { chains } = await findAgentChains({ persona: "undelivered" });
    expect(chains[0].latest.id).toBe(to.id);
    expect(chains[0].latest.stalledArrival?.agentId).toBe(from.id);
    const folded = chains[0].predecessors.find((agent) => agent.id === from.id)!;
    expect(folded.deliveryStalled).toBe(true);
    expect(chains[0].predecessors.every((agent) => agent.id === from.id || !agent.deliveryStalled)).toBe(true);
  });
});

describe("findAttention", () => {
  it("lists an unseen question for the side it is for, until that side reads it", async () => {
    const { handoff } = await createHandoff({ title: "Desk: a question", content: "Context.", project: "desk" });
    await addEntry({ id: handoff.id, type: "question", content: "SQLite or PostgreSQL?", asClient: "code" });
    const asked = (await findAttention()).questions.find((question) => question.handoffId === handoff.id);
    expect(asked).toMatchObject({ waitingFor: "chat", number: 2, excerpt: "SQLite or PostgreSQL?" });
    await markRead({ id: handoff.id, asClient: "chat" });
    expect((await findAttention()).questions.some((question) => question.handoffId === handoff.id)).toBe(false);
  });

  it("lists a failed delivery while its successor works, and agents near their context limit", async () => {
    const [, from, to] = await chainOf(3, "attention-delivery", "nowhere:0.0");
    const near = await registerAgent({ personaSlug: "attention-context" });
    await updateAgent({ agentId: near.id, contextPercent: 93 });
    const attention = await findAttention();
    const delivery = attention.deliveries.find((item) => item.agent.id === from.id);
    expect(delivery?.successor?.id).toBe(to.id);
    expect(delivery?.record.deliveryState).toBe("failed");
    expect(attention.nearLimit.map((agent) => agent.id)).toContain(near.id);
    expect(attention.count).toBe(
      attention.questions.length + attention.waiting.length + attention.deliveries.length + attention.stale.length + attention.nearLimit.length,
    );
  });
});

describe("readBundle", () => {
  it("reads a kept bundle as its summary's sections, and says what is wrong with one that is missing", async () => {
    const { handoff } = await createHandoff({ title: "Desk: kept", content: "We use **SQLite**.", project: "desk" });
    await addEntry({ id: handoff.id, type: "decision", content: "WAL mode.", asClient: "chat" });
    await addEntry({ id: handoff.id, type: "question", content: "A replica later?", asClient: "code" });
    const { artifactId } = await closeHandoff({ id: handoff.id, archive: true });
    const reading = await readBundle(artifactId!);
    expect(reading.status).toBe("ok");
    if (reading.status !== "ok") return;
    expect(reading.sections.map((section) => section.heading).slice(0, 2)).toEqual(["Latest decision", "Open questions"]);
    expect(reading.sections[0].markdown).toContain("WAL mode.");
    expect(reading.sections[1].markdown).toContain("A replica later?");
    expect(await readBundle("0".repeat(64))).toMatchObject({ status: "unreadable", problem: expect.stringContaining("not found") });
  });
});
