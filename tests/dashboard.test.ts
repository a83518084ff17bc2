import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endAgent, registerAgent, triggerHandoff, updateAgent, type AgentView } from "../lib/agents";
import { findAgentChains, MAX_FOLDED_PREDECESSORS } from "../lib/dashboard/find-agent-chains";
import { attentionForCaller, markAttention, unmarkAttention } from "../lib/dashboard/attention-marks";
import { findAttention } from "../lib/dashboard/find-attention";
import { withCaller } from "../lib/caller";
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
    expect(chains[0].latest.arrivalProblem?.kind).toBe("stalled");
    const folded = chains[0].predecessors.find((agent) => agent.id === from.id)!;
    expect(folded.handoff?.deliveryProblem?.kind).toBe("stalled");
    expect(chains[0].predecessors.every((agent) => agent.id === from.id || !agent.handoff?.deliveryProblem)).toBe(true);
  });
  it("folds a long chain's nearest predecessors under its latest agent, the oldest shown still flagged by the handoff that started it (its predecessor, not shown, is read)", async () => {
    const length = MAX_FOLDED_PREDECESSORS + 3;
    const agents = [await registerAgent({ personaSlug: "long-fold", project: "desk" })];
    while (agents.length < length) {
      // The handoff that starts the oldest agent shown goes to a pane that is not there.
      const tmuxTarget = agents.length === length - 1 - MAX_FOLDED_PREDECESSORS ? "nowhere:0.0" : undefined;
      agents.push((await triggerHandoff({ agentId: agents.at(-1)!.id, reason: "shift_end", document: DOCUMENT, successor: { tmuxTarget } })).successor);
    }
    const [chain] = (await findAgentChains({ persona: "long-fold" })).chains;
    expect(chain.length).toBe(length);
    expect(chain.latest.id).toBe(agents.at(-1)!.id);
    const shown = agents.slice(-1 - MAX_FOLDED_PREDECESSORS, -1).reverse();
    expect(chain.predecessors.map((agent) => agent.id)).toEqual(shown.map((agent) => agent.id));
    expect(chain.predecessors.at(-1)!.arrivalProblem).not.toBeNull();
    expect(chain.predecessors.slice(0, -1).every((agent) => agent.arrivalProblem === null)).toBe(true);
  });
});

describe("findAttention", () => {
  it("lists an unseen question for the side it is for, until that side reads it", async () => {
    const { handoff } = await createHandoff({ title: "Desk: a question", content: "Context.", project: "desk" });
    await addEntry({ id: handoff.id, type: "question", content: "SQLite or PostgreSQL?", asClient: "code" });
    const row = (await findAttention()).threads.find((thread) => thread.handoffId === handoff.id);
    expect(row?.sides).toEqual([expect.objectContaining({ side: "chat", newCount: 1, openAt: 2, questions: [expect.objectContaining({ number: 2, excerpt: "SQLite or PostgreSQL?" })] })]);
    await markRead({ id: handoff.id, asClient: "chat" });
    expect((await findAttention()).threads.some((thread) => thread.handoffId === handoff.id)).toBe(false);
  });

  it("takes an answered question off by itself, and groups a thread's questions in one row", async () => {
    const { handoff } = await createHandoff({ title: "Desk: five questions", content: "Context.", project: "desk" });
    for (let n = 1; n <= 5; n++) await addEntry({ id: handoff.id, type: "question", content: `Question ${n}?`, asClient: "code" });
    const rowOf = async () => (await findAttention()).threads.filter((thread) => thread.handoffId === handoff.id);
    const [row] = await rowOf();
    expect(row.sides.map((side) => [side.side, side.questions.length, side.newCount])).toEqual([["chat", 5, 5]]);
    // An answer from the asking side itself does not mark the thread read for the other side, yet answers.
    for (let number = 2; number <= 6; number++) await addEntry({ id: handoff.id, content: `Answer to #${number}.`, answers: number, asClient: "code" });
    expect(await rowOf()).toEqual([]);
  });

  it("keeps Done and Snooze per operator and side: Done hides what the row held, snoozed-until-new comes back with the next entry", async () => {
    const { handoff } = await createHandoff({ title: "Desk: marks", content: "Context.", project: "desk" });
    await addEntry({ id: handoff.id, type: "question", content: "First?", asClient: "code" });
    const rowOf = async () => (await attentionForCaller(await findAttention())).threads.find((thread) => thread.handoffId === handoff.id);
    const row = (await rowOf())!;
    await markAttention({ handoffId: handoff.id, sides: ["chat"], kind: "done", throughNumber: row.lastNumber });
    expect(await rowOf()).toBeUndefined();
    // Another operator's desk still shows it.
    await withCaller({ who: { kind: "token", tokenId: 9, name: "other", role: "operator", proof: "x" }, local: false }, async () => {
      expect(await rowOf()).toBeDefined();
    });
    // What is written after Done brings the row back, with only that.
    await addEntry({ id: handoff.id, type: "question", content: "Second?", asClient: "code" });
    expect((await rowOf())?.sides[0].questions.map((question) => question.number)).toEqual([3]);

    await markAttention({ handoffId: handoff.id, sides: "chat", kind: "snoozed", throughNumber: 3 });
    expect(await rowOf()).toBeUndefined();
    await addEntry({ id: handoff.id, type: "progress", content: "Meanwhile.", asClient: "code" });
    expect((await rowOf())?.sides[0].questions.map((question) => question.number)).toEqual([3, 2]);

    await markAttention({ handoffId: handoff.id, sides: ["chat"], kind: "snoozed", until: new Date(Date.now() + 3_600_000).toISOString() });
    await addEntry({ id: handoff.id, type: "question", content: "Third?", asClient: "code" });
    expect(await rowOf()).toBeUndefined();
    await unmarkAttention({ handoffId: handoff.id });
    expect(await rowOf()).toBeDefined();

    await expect(markAttention({ handoffId: handoff.id, sides: ["chat"], kind: "snoozed", until: "2001-01-01T00:00:00Z" })).rejects.toThrow(/in the future/);
    await expect(markAttention({ handoffId: handoff.id, sides: ["nobody"], kind: "done" })).rejects.toThrow(/chat/);
    await expect(markAttention({ handoffId: "hof_NoSuchHandoff00000000", sides: ["chat"], kind: "done" })).rejects.toThrow(/not found/);
  });

  it("refuses an answers that names no question of the thread", async () => {
    const { handoff } = await createHandoff({ title: "Desk: answers", content: "Context.", project: "desk" });
    await expect(addEntry({ id: handoff.id, content: "An answer to nothing.", answers: 7, asClient: "chat" })).rejects.toThrow(/has no entry #7/);
    await expect(addEntry({ id: handoff.id, content: "An answer to context.", answers: 1, asClient: "chat" })).rejects.toThrow(/is a context, not a question/);
    await expect(addEntry({ id: handoff.id, content: "No type.", asClient: "chat" })).rejects.toThrow(/type is required/);
    const { entry } = await addEntry({ id: handoff.id, type: "question", content: "Really?", asClient: "code" });
    const answer = await addEntry({ id: handoff.id, content: "Yes.", answers: entry.number, asClient: "chat" });
    expect(answer.entry).toMatchObject({ number: 3, answers: 2, type: "decision" });
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
    expect(attention.count).toBe(attention.threads.length + attention.deliveries.length + attention.stale.length + attention.nearLimit.length);
    // Its successor ended: nothing left to retry, so off the desk (and said as not delivered on /agents).
    await endAgent({ agentId: to.id });
    expect((await findAttention()).deliveries.some((item) => item.agent.id === from.id)).toBe(false);
    const { chains } = await findAgentChains({ persona: "attention-delivery" });
    expect(chains[0].latest.arrivalProblem?.kind).toBe("successor ended");
    expect(chains[0].predecessors.find((agent) => agent.id === from.id)?.handoff?.deliveryProblem?.kind).toBe("successor ended");
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
