import { describe, expect, it } from "vitest";
import { db, readTransaction, type Tx } from "../lib/db";
import { NotFound } from "../lib/errors";
import { findAgents, getContinuityChain, registerAgent, triggerHandoff, type AgentView } from "../lib/agents";
import { getContinuityChainIn } from "../lib/agents/get-continuity-chain";

const DOCUMENT = "## Goal\nKeep going.\n";

/** A chain of `length` agents made by real handoffs; oldest first. */
async function chainOf(length: number, personaSlug: string): Promise<AgentView[]> {
  const agents = [await registerAgent({ personaSlug, project: "chain" })];
  while (agents.length < length) {
    const { successor } = await triggerHandoff({ agentId: agents.at(-1)!.id, reason: "context_limit", document: DOCUMENT });
    agents.push(successor);
  }
  return agents;
}

const ids = (nodes: { id: number }[]) => nodes.map((node) => node.id);

describe("continuity chain", () => {
  it("a 5-agent chain reads the same, in order, from any member", async () => {
    const agents = await chainOf(5, "five");
    for (const [index, member] of agents.entries()) {
      const chain = await getContinuityChain({ agentId: member.id });
      expect(chain.agent.id).toBe(member.id);
      expect(ids(chain.predecessors)).toEqual(ids(agents.slice(0, index)));
      expect(ids(chain.successors)).toEqual(ids(agents.slice(index + 1)));
      expect(chain.length).toBe(5);
    }
    const fromMiddle = await getContinuityChain({ agentId: agents[2].shortId });
    expect(fromMiddle.predecessors.every((node) => node.handoff?.reason === "context_limit")).toBe(true);
    expect(fromMiddle.agent.handoff?.reason).toBe("context_limit");
    expect(fromMiddle.successors.at(-1)!.handoff).toBeNull();
    expect(fromMiddle.successors.at(-1)!.status).toBe("active");
    const page = await findAgents({ persona: "five" });
    expect(page.items.map((item) => item.chainLength)).toEqual([5, 5, 5, 5, 5]);
  });

  it("a gap (a deleted member) ends the chain there on both sides", async () => {
    const agents = await chainOf(5, "gap");
    const prisma = await db();
    await prisma.agent.delete({ where: { id: agents[2].id } });
    const after = await getContinuityChain({ agentId: agents[3].id });
    expect(ids(after.predecessors)).toEqual([]);
    expect(ids(after.successors)).toEqual([agents[4].id]);
    const before = await getContinuityChain({ agentId: agents[1].id });
    expect(ids(before.predecessors)).toEqual([agents[0].id]);
    expect(ids(before.successors)).toEqual([]);
  });

  it("a dangling previous_agent_id (written with foreign keys off) is a gap, not an error", async () => {
    const agents = await chainOf(2, "dangling");
    const prisma = await db();
    await prisma.$executeRawUnsafe("PRAGMA foreign_keys = OFF");
    try {
      await prisma.$executeRawUnsafe("UPDATE agents SET previous_agent_id = 987654 WHERE id = ?", agents[0].id);
    } finally {
      await prisma.$executeRawUnsafe("PRAGMA foreign_keys = ON");
    }
    const chain = await getContinuityChain({ agentId: agents[1].id });
    expect(ids(chain.predecessors)).toEqual([agents[0].id]);
    expect(chain.length).toBe(2);
    expect((await findAgents({ persona: "dangling" })).items.map((item) => item.chainLength)).toEqual([2, 2]);
  });

  it("a cycle inserted by hand does not hang and lists every member once", async () => {
    const agents = await chainOf(3, "cycle");
    const prisma = await db();
    // 1 → 2 → 3 → 1: the head now continues from the tail.
    await prisma.agent.update({ where: { id: agents[0].id }, data: { previousAgentId: agents[2].id } });
    const started = Date.now();
    for (const member of agents) {
      const chain = await getContinuityChain({ agentId: member.id });
      const all = [...ids(chain.predecessors), chain.agent.id, ...ids(chain.successors)];
      expect(new Set(all).size).toBe(all.length);
      expect(all.sort()).toEqual(ids(agents).sort());
    }
    const selfLoop = await registerAgent({ personaSlug: "cycle" });
    await prisma.agent.update({ where: { id: selfLoop.id }, data: { previousAgentId: selfLoop.id } });
    const alone = await getContinuityChain({ agentId: selfLoop.id });
    expect(alone.length).toBe(1);
    const page = await findAgents({ persona: "cycle" });
    expect(page.items.map((item) => item.chainLength).sort()).toEqual([1, 3, 3, 3]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a fork lists both successors, oldest first", async () => {
    const [root] = await chainOf(1, "fork");
    const { successor } = await triggerHandoff({ agentId: root.id, reason: "task_boundary", document: DOCUMENT });
    const other = await registerAgent({ personaSlug: "fork" });
    const prisma = await db();
    await prisma.agent.update({ where: { id: other.id }, data: { previousAgentId: root.id, startedAt: new Date(Date.now() + 1000) } });
    expect(ids((await getContinuityChain({ agentId: root.id })).successors)).toEqual([successor.id, other.id]);
  });

  it("an unknown agent is NotFound", async () => {
    await expect(getContinuityChain({ agentId: 424242 })).rejects.toBeInstanceOf(NotFound);
  });

  it("reads a chain of 300 in two statements, not one per agent", async () => {
    const prisma = await db();
    // Build a long chain directly (300 handoffs would take a while): each agent continues from the last.
    const head = await registerAgent({ personaSlug: "long" });
    let previous = head.id;
    for (let index = 1; index < 300; index += 1) {
      const row = await prisma.agent.create({
        data: { sessionId: crypto.randomUUID(), personaSlug: "long", name: "long", previousAgentId: previous },
      });
      previous = row.id;
    }
    const calls: string[] = [];
    const chain = await readTransaction((tx) => getContinuityChainIn(counting(tx, calls), previous));
    expect(chain.predecessors.length).toBe(299);
    expect(chain.predecessors[0].id).toBe(head.id);
    expect(calls).toEqual(["$queryRawUnsafe", "agent.findMany"]);
  });
});

/** A transaction that records every database call made through it. */
function counting(tx: Tx, calls: string[]): Tx {
  const wrap = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        const name = `${prefix}${String(property)}`;
        if (typeof value === "function") {
          return (...args: unknown[]) => {
            calls.push(name);
            return (value as (...rest: unknown[]) => unknown).apply(object, args);
          };
        }
        if (value && typeof value === "object" && prefix === "") return wrap(value as object, `${name}.`);
        return value;
      },
    });
  return wrap(tx, "");
}
