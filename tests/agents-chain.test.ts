import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { databaseFile } from "../lib/config";
import { database, read, storedDate, write, type Params, type Tx } from "../lib/database";
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
    await write((tx) => tx.run("DELETE FROM agents WHERE id = ?", [agents[2].id]));
    const after = await getContinuityChain({ agentId: agents[3].id });
    expect(ids(after.predecessors)).toEqual([]);
    expect(ids(after.successors)).toEqual([agents[4].id]);
    const before = await getContinuityChain({ agentId: agents[1].id });
    expect(ids(before.predecessors)).toEqual([agents[0].id]);
    expect(ids(before.successors)).toEqual([]);
  });

  it("a dangling previous_agent_id (written with foreign keys off) is a gap, not an error", async () => {
    const agents = await chainOf(2, "dangling");
    await withoutForeignKeys("UPDATE agents SET previous_agent_id = 987654 WHERE id = ?", [agents[0].id]);
    const chain = await getContinuityChain({ agentId: agents[1].id });
    expect(ids(chain.predecessors)).toEqual([agents[0].id]);
    expect(chain.length).toBe(2);
    expect((await findAgents({ persona: "dangling" })).items.map((item) => item.chainLength)).toEqual([2, 2]);
  });

  it("a cycle inserted by hand does not hang and lists every member once", async () => {
    const agents = await chainOf(3, "cycle");
    // 1 → 2 → 3 → 1: the head now continues from the tail.
    await setPrevious(agents[0].id, agents[2].id);
    const started = Date.now();
    for (const member of agents) {
      const chain = await getContinuityChain({ agentId: member.id });
      const all = [...ids(chain.predecessors), chain.agent.id, ...ids(chain.successors)];
      expect(new Set(all).size).toBe(all.length);
      expect(all.sort()).toEqual(ids(agents).sort());
    }
    const selfLoop = await registerAgent({ personaSlug: "cycle" });
    await setPrevious(selfLoop.id, selfLoop.id);
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
    await write((tx) =>
      tx.run("UPDATE agents SET previous_agent_id = ?, started_at = ? WHERE id = ?", [root.id, storedDate(new Date(Date.now() + 1000)), other.id]),
    );
    expect(ids((await getContinuityChain({ agentId: root.id })).successors)).toEqual([successor.id, other.id]);
  });

  it("an unknown agent is NotFound", async () => {
    await expect(getContinuityChain({ agentId: 424242 })).rejects.toBeInstanceOf(NotFound);
  });

  it("reads a chain of 300 in two statements, not one per agent, listing the 20 nearest and the first", async () => {
    // Build a long chain directly (300 handoffs would take a while): each agent continues from the last.
    const head = await registerAgent({ personaSlug: "long" });
    const previous = await write(async (tx) => {
      let last = head.id;
      for (let index = 1; index < 300; index += 1) {
        const row = await tx.get<{ id: number }>(
          "INSERT INTO agents (session_id, persona_slug, name, previous_agent_id, started_at) VALUES (?, 'long', 'long', ?, ?) RETURNING id",
          [crypto.randomUUID(), last, storedDate()],
        );
        last = row!.id;
      }
      return last;
    });
    const calls: string[] = [];
    const chain = await read((tx) => getContinuityChainIn(counting(tx, calls), previous));
    expect(chain.predecessors.length).toBe(20);
    expect(chain.predecessors.at(-1)!.id).toBe(previous - 1);
    expect([chain.length, chain.earlier, chain.first?.id, chain.later, chain.last]).toEqual([300, 279, head.id, 0, null]);
    expect(calls).toEqual(["rows", "all"]);
  });
});

/** A transaction that records the name of every statement method called through it. */
function counting(tx: Tx, calls: string[]): Tx {
  return {
    engine: tx.engine,
    get: <Row,>(text: string, params?: Params) => (calls.push("get"), tx.get<Row>(text, params)),
    all: <Row,>(text: string, params?: Params) => (calls.push("all"), tx.all<Row>(text, params)),
    rows: <Tuple extends unknown[]>(text: string, params?: Params) => (calls.push("rows"), tx.rows<Tuple>(text, params)),
    run: (text: string, params?: Params) => (calls.push("run"), tx.run(text, params)),
  };
}

async function setPrevious(id: number, previousId: number): Promise<void> {
  await write((tx) => tx.run("UPDATE agents SET previous_agent_id = ? WHERE id = ?", [previousId, id]));
}

/**
 * Runs a statement the foreign keys would refuse, as a hand edit of the database could: on
 * SQLite through a connection of its own with foreign keys off (a pragma that does nothing
 * inside the shared connection's transactions), on PostgreSQL with the referential triggers off for the transaction (the tests connect
 * as a superuser).
 */
async function withoutForeignKeys(text: string, params: unknown[]): Promise<void> {
  if (database().engine === "postgres") {
    await write(async (tx) => {
      await tx.run("SET LOCAL session_replication_role = replica");
      await tx.run(text, params);
    });
    return;
  }
  const connection = new Database(databaseFile());
  try {
    connection.pragma("foreign_keys = OFF");
    connection.prepare(text).run(...params);
  } finally {
    connection.close();
  }
}
