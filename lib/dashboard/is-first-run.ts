import "server-only";
import { read } from "../database";

/** No handoff and no agent yet: the desk then leads with how to connect Claude. */
export async function isFirstRun(): Promise<boolean> {
  const row = await read((tx) =>
    tx.get<{ is_first: number }>("SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM handoffs) AND NOT EXISTS (SELECT 1 FROM agents) THEN 1 ELSE 0 END AS is_first"),
  );
  return row?.is_first === 1;
}
