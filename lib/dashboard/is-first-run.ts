import "server-only";
import { read } from "../sqlite";

/** No handoff and no agent yet: the desk then leads with how to connect Claude. */
export function isFirstRun(): boolean {
  const row = read((tx) => tx.statement("SELECT NOT EXISTS (SELECT 1 FROM handoffs) AND NOT EXISTS (SELECT 1 FROM agents) AS first").get()) as { first: number };
  return row.first === 1;
}
