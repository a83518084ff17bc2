import { NotFound } from "../errors";
import type { Tx } from "../db";
import type { Handoff } from "../generated/prisma/client";

function handoffNotFound(id: string): NotFound {
  return new NotFound(`handoff ${id} not found; check the ID (it was pasted or typed wrong, or belongs to another Baton)`);
}

/** The handoff row, or a NotFound naming the ID. */
export async function loadHandoff(tx: Tx, id: string): Promise<Handoff> {
  const row = await tx.handoff.findUnique({ where: { id } });
  if (!row) throw handoffNotFound(id);
  return row;
}
