/**
 * Baton's append on PostgreSQL as the floors send it: the very statement lib/handoffs/store.ts
 * runs (lib/handoffs/append-statement.ts), numbered for pg, its own transaction. The row back:
 * none for no such thread, `seq` null for a closed one.
 */
import { numberedParameters } from "../../lib/database/params";
import { APPEND_STATEMENTS, appendParameters } from "../../lib/handoffs/append-statement";

const TEXTS = { chat: numberedParameters(APPEND_STATEMENTS.chat), code: numberedParameters(APPEND_STATEMENTS.code) };

export function appendQuery(id: string, side: "chat" | "code", type: string, content: string) {
  return { name: `append-${side}`, text: TEXTS[side], values: appendParameters(id, { fromClient: side, type, content, createdAt: new Date().toISOString(), git: null, answers: null }) };
}
