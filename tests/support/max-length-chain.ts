import { randomUUID } from "node:crypto";
import path from "node:path";
import { dataDir } from "../../lib/config";
import { storedDate, write } from "../../lib/database";
import { injectionPromptFor } from "../../lib/agents/trigger-handoff";

// Every field at its longest, in the characters that weigh most as JSON: a name of 100 three-byte
// characters, a 64-character persona, a 40-character project, the longest tmux target, and a
// handoff record on every agent whose delivery failed with the longest reason the bridge gives.
const PERSONA = `p${"x".repeat(62)}9`;
const NAME = "名".repeat(100);
const PROJECT = `q${"y".repeat(39)}`;
const TARGET = `${"s".repeat(64)}:${"w".repeat(64)}.9999`;
const HELD = "a dialog is open (a yes/no question)";
const DELIVERY = `failed: the pane ${JSON.stringify(TARGET)} did not come to rest within 15 s (${HELD}); nothing was typed: retry once it is free`;

/**
 * A chain of `count` agents at maximum field lengths, each but the last handed off to the next;
 * each record's injection prompt names its document under the data folder (dataDir() now).
 * Returns their ids, oldest first.
 */
export async function fillMaxLengthChain(count: number): Promise<number[]> {
  const at = storedDate(new Date(Date.now() - 3_600_000));
  const ids: number[] = [];
  await write(async (tx) => {
    let previous: number | null = null;
    for (let index = 0; index < count; index++) {
      const sessionId = randomUUID();
      const last = index === count - 1;
      const agent: { id: number } | undefined = await tx.get<{ id: number }>(
        `INSERT INTO agents (session_id, persona_slug, name, project, status, tmux_target, context_percent, previous_agent_id, started_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, 100, ?, ?, ?) RETURNING id`,
        [sessionId, PERSONA, NAME, PROJECT, last ? "active" : "ended", TARGET, previous, at, last ? null : at],
      );
      if (!last) {
        const shortId = sessionId.slice(0, 8);
        const relative = `personas/${PERSONA}/handoffs/20261129T101500-${shortId}-9f8e7d6c.md`;
        await tx.run(
          `INSERT INTO handoff_records (agent_id, reason, file_path, document, injection_prompt, delivery, delivery_state, created_at, typed_at, delivery_attempts)
           VALUES (?, 'context_limit', ?, '## Goal', ?, ?, 'failed', ?, ?, 99)`,
          [agent!.id, relative, injectionPromptFor(shortId, agent!.id, path.join(dataDir(), relative), PERSONA), DELIVERY, at, at],
        );
      }
      ids.push(agent!.id);
      previous = agent!.id;
    }
  });
  return ids;
}
