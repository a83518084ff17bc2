import "server-only";
import { MAX_INT4, read, type Tx } from "../database";
import { Invalid } from "../errors";
import { agentNotFound } from "./load";
import { SESSION_ID_PATTERN, SESSION_PREFIX_PATTERN } from "./schemas";

const INTEGER_ID = /^[1-9][0-9]{0,14}$/;
/** Ids are 32-bit integers on PostgreSQL: a larger one names no agent (and must not reach the database). */
const MAX_AGENT_ID = MAX_INT4;

function refused(ref: unknown): Invalid {
  const shown = JSON.stringify(String(ref).slice(0, 60));
  return new Invalid(
    `${shown} does not name an agent: give its integer id (e.g. 12), its session UUID, or the first 8 hex digits of the session id (e.g. 4b6f8a2c)`,
    { agentId: ["give an integer id, a session UUID or an 8-hex session prefix"] },
  );
}

/**
 * The integer id of the agent a person or model named, inside the caller's transaction.
 * A string of exactly 8 hex digits is a session prefix (even when they are all digits); other
 * digit strings are integer ids.
 */
export async function resolveAgentIdIn(tx: Tx, ref: unknown): Promise<number> {
  if (typeof ref === "number") {
    if (!Number.isSafeInteger(ref) || ref < 1) throw refused(ref);
    const row = ref <= MAX_AGENT_ID ? await tx.get<{ id: number }>("SELECT id FROM agents WHERE id = ?", [ref]) : undefined;
    if (!row) throw agentNotFound(ref);
    return row.id;
  }
  if (typeof ref !== "string") throw refused(ref);
  const text = ref.trim().toLowerCase();
  if (SESSION_ID_PATTERN.test(text)) {
    const row = await tx.get<{ id: number }>("SELECT id FROM agents WHERE session_id = ?", [text]);
    if (!row) throw agentNotFound(text);
    return row.id;
  }
  if (SESSION_PREFIX_PATTERN.test(text)) {
    // A range on the unique index (session ids are lowercase hex and hyphens, all below "g"), not a LIKE that scans.
    const rows = await tx.all<{ id: number }>("SELECT id FROM agents WHERE session_id >= ? AND session_id < ? ORDER BY session_id LIMIT 2", [text, `${text}g`]);
    if (rows.length === 0) throw agentNotFound(text);
    if (rows.length > 1) {
      throw new Invalid(`session prefix ${text} matches more than one agent; give the integer id or the full session UUID`, {
        agentId: ["ambiguous session prefix"],
      });
    }
    return rows[0].id;
  }
  if (INTEGER_ID.test(text)) return resolveAgentIdIn(tx, Number(text));
  throw refused(ref);
}

/** The integer id of an agent named by id, session UUID or unique 8-hex session prefix. */
export async function resolveAgentId(ref: string | number): Promise<number> {
  return read((tx) => resolveAgentIdIn(tx, ref));
}
