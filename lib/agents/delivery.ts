import "server-only";
import { z } from "zod";
import { databaseNow, lockRows, storedDate, write, type Tx } from "../database";
import { assertMayTypeIntoTmux, currentCaller } from "../caller";
import { Conflict, NotFound } from "../errors";
import { parseInput } from "../validation";
import { advancedState, type DeliveryState } from "./delivery-states";
import { loadAgent } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { RECORD_COLUMNS, RECORD_RETURNING, toHandoffRecordView, type RecordRow } from "./rows";
import { agentRefSchema, optionalTmuxTargetSchema } from "./schemas";
import { outcomeOf, sendPrompt } from "./tmux-bridge";
import { shortIdOf, type HandoffRecordView } from "./views";

type StepExtra = {
  delivery?: string;
  typedAt?: Date;
  submittedAt?: Date;
  readAt?: Date;
  actedAt?: Date;
  /**
   * The delivery that held the record's claim under this stamp (claimDelivery's) has ended: the
   * next may begin. A claim taken over since (this delivery outlasted DELIVERY_CLAIM_MS) stays:
   * it is another delivery's, still typing.
   */
  release?: string;
};

/**
 * How long a delivery holds its claim at most: the wait for the pane to come to rest, typing and
 * the read-back take well under this. A claim older than this was left by a server that stopped
 * mid-delivery, and the next delivery takes it over.
 */
const DELIVERY_CLAIM_MS = 60_000;

/** The record, locked until the transaction ends: every step reads it, then writes it. */
async function lockRecord(tx: Tx, where: "id" | "agent_id", value: number): Promise<RecordRow | undefined> {
  return tx.get<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM handoff_records r WHERE r.${where} = ?${lockRows(tx)}`, [value]);
}

/**
 * One step of a delivery, written so steps only move forward: the state advances (never back),
 * and each step's time is kept from the first time it happened. `record` was read under its
 * lock (lockRecord) in this transaction.
 */
async function recordStep(tx: Tx, record: RecordRow, state: DeliveryState, extra: StepExtra = {}): Promise<RecordRow> {
  const firstTime = (kept: string | null, at: Date | undefined) => kept ?? (at ? storedDate(at) : null);
  const row = await tx.get<RecordRow>(
    `UPDATE handoff_records SET delivery_state = ?, delivery = ?, typed_at = ?, submitted_at = ?, read_at = ?, acted_at = ?,
       delivering_since = CASE WHEN delivering_since = ? THEN NULL ELSE delivering_since END
     WHERE id = ? RETURNING ${RECORD_RETURNING}`,
    [
      advancedState(record.delivery_state as DeliveryState | null, state),
      extra.delivery ?? record.delivery,
      firstTime(record.typed_at, extra.typedAt),
      firstTime(record.submitted_at, extra.submittedAt),
      firstTime(record.read_at, extra.readAt),
      firstTime(record.acted_at, extra.actedAt),
      extra.release ?? null,
      record.id,
    ],
  );
  return row!;
}

async function updateRecord(id: number, state: DeliveryState, extra: StepExtra): Promise<RecordRow> {
  return write(async (tx) => {
    const current = await lockRecord(tx, "id", id);
    if (!current) throw new NotFound(`handoff record ${id} is gone (its agent was deleted)`);
    return recordStep(tx, current, state, extra);
  });
}

/**
 * Claims the record for one delivery (counted as an attempt), or refuses with a Conflict while
 * another holds it: two deliveries at once (Retry in two tabs, on the desk and the agent's page)
 * would type the prompt twice into one line, their pieces interleaved, and press Enter twice.
 * The claim is in the record, so it holds across a team server's instances.
 */
async function claimDelivery(tx: Tx, recordId: number, shortId: string): Promise<{ claimed: HandoffRecordView; claim: string }> {
  const current = await tx.get<{ delivering_since: string | null }>(`SELECT delivering_since FROM handoff_records WHERE id = ?${lockRows(tx)}`, [recordId]);
  if (!current) throw new NotFound(`handoff record ${recordId} is gone (its agent was deleted)`);
  // The database's clock, as the claim's stamp is written on: instances on machines whose clocks
  // are a minute apart each took the other's claim as lapsed and typed the prompt alongside it.
  const now = await databaseNow(tx);
  const since = current.delivering_since === null ? null : new Date(Date.parse(current.delivering_since));
  if (since && now.getTime() - since.getTime() < DELIVERY_CLAIM_MS) {
    throw new Conflict(
      `agent ${shortId}'s prompt is being delivered already (since ${since.toISOString()}): its outcome shows on the agent's page within a minute; retry then if it failed`,
    );
  }
  const claim = storedDate(now);
  const claimed = await tx.get<RecordRow>(`UPDATE handoff_records SET delivering_since = ?, delivery_attempts = delivery_attempts + 1 WHERE id = ? RETURNING ${RECORD_RETURNING}`, [
    claim,
    recordId,
  ]);
  return { claimed: toHandoffRecordView(claimed!), claim };
}

/**
 * Sends the record's injection prompt to `target` and records each step: typed once tmux took
 * the whole text, then submitted (the prompt seen entered) or failed with tmux's reason. The
 * caller has claimed the record (claimDelivery, or the handoff's insert) with the stamp `claim`;
 * the last step releases that claim. tmux runs between transactions, never inside one.
 *
 * The steps are bookkeeping, never a reason to stop or to fail: a database busy or gone while
 * the prompt is typed neither keeps Enter from a typed prompt nor turns a handoff that committed
 * (or a Retry that typed) into an error saying nothing was stored. A step that cannot be written
 * is logged, and the answer is the record as `claimed` (what the caller holds from its claim): it
 * stays claimed until the claim lapses (DELIVERY_CLAIM_MS), then Retry is offered.
 */
export async function deliverRecord(recordId: number, target: string, prompt: string, claimed: HandoffRecordView, claim: string): Promise<HandoffRecordView> {
  const unrecorded = (step: string) => (error: unknown) => {
    console.error(`baton: the ${step} of handoff record ${recordId}'s delivery could not be recorded: ${(error as Error).message.split("\n")[0]}`);
  };
  const sent = await sendPrompt(target, prompt, async (typedAt) => {
    await updateRecord(recordId, "typed", { typedAt }).catch(unrecorded("typed step"));
  });
  const delivery = outcomeOf(sent);
  try {
    let row: RecordRow;
    if (sent.step === "submitted") row = await updateRecord(recordId, "submitted", { delivery, typedAt: sent.typedAt, submittedAt: sent.submittedAt, release: claim });
    else if (sent.step === "typed") row = await updateRecord(recordId, "typed", { delivery, typedAt: sent.typedAt, release: claim });
    else row = await updateRecord(recordId, "failed", { delivery, release: claim });
    return toHandoffRecordView(row);
  } catch (error) {
    unrecorded(`outcome (${delivery})`)(error);
    return claimed;
  }
}

export const retryDeliveryInput = z.object({
  agentId: agentRefSchema,
  /** Another pane to deliver to: it becomes the successor's tmux target. Blank: the one it has. */
  tmuxTarget: optionalTmuxTargetSchema,
});

export type RetryDeliveryOptions = { agentId: string | number; tmuxTarget?: string | null };

/**
 * Sends a handoff's injection prompt again, to the successor's tmux target as it is now (the
 * operator may have created the pane or corrected the target since), or to `tmuxTarget`, which
 * then becomes the successor's target. `agentId` is the agent who handed off. Refused once the
 * successor has read its document (it no longer needs the prompt) or has ended.
 */
export async function retryDelivery(options: RetryDeliveryOptions): Promise<HandoffRecordView> {
  const input = parseInput(retryDeliveryInput, options);
  // Naming a pane is choosing where text gets typed: the same rule as setting a target anywhere.
  if (input.tmuxTarget) assertMayTypeIntoTmux(currentCaller());
  const { recordId, target, prompt, claimed, claim } = await write(async (tx) => {
    const agent = await loadAgent(tx, await resolveAgentIdIn(tx, input.agentId));
    const shortId = shortIdOf(agent.session_id);
    if (!agent.handoff) throw new Conflict(`agent ${shortId} has not handed off: there is no delivery to retry`);
    const state = agent.handoff.delivery_state as DeliveryState | null;
    if (state === "read" || state === "acted") {
      throw new Conflict(`agent ${shortId}'s successor has already read its shift document: there is nothing to deliver again`);
    }
    const prompt = agent.handoff.injection_prompt;
    if (!prompt) throw new Conflict(`agent ${shortId}'s handoff has no injection prompt to deliver`);
    const successor = await tx.get<{ id: number; session_id: string; status: string; tmux_target: string | null }>(
      "SELECT id, session_id, status, tmux_target FROM agents WHERE previous_agent_id = ? ORDER BY id LIMIT 1",
      [agent.id],
    );
    // Its pane may run anything by now (the next agent, a shell): the prompt is for a successor at work.
    if (successor && successor.status !== "active") {
      throw new Conflict(`agent ${shortId}'s successor ${shortIdOf(successor.session_id)} has ended: there is no one to deliver its prompt to`);
    }
    if (successor && input.tmuxTarget && input.tmuxTarget !== successor.tmux_target) {
      await tx.run("UPDATE agents SET tmux_target = ? WHERE id = ?", [input.tmuxTarget, successor.id]);
      successor.tmux_target = input.tmuxTarget;
    }
    if (!successor?.tmux_target) {
      throw new Conflict(`agent ${shortId}'s successor has no tmux target: set one on the successor's page (or paste the prompt yourself), then retry`);
    }
    const { claimed, claim } = await claimDelivery(tx, agent.handoff.id, shortId);
    return { recordId: agent.handoff.id, target: successor.tmux_target, prompt, claimed, claim };
  });
  return deliverRecord(recordId, target, prompt, claimed, claim);
}

/**
 * Records that the successor fetched the document (the first time sets read_at), in the
 * caller's transaction; answers the record as it stands after.
 */
export async function recordDocumentRead(tx: Tx, recordId: number, at: Date): Promise<RecordRow> {
  const record = await lockRecord(tx, "id", recordId);
  if (!record) throw new NotFound(`handoff record ${recordId} is gone (its agent was deleted)`);
  if (record.read_at) return record;
  return recordStep(tx, record, "read", { readAt: at });
}

/**
 * Records that `agentId` acted as a successor (reported its context): the handoff it continues
 * from moves to acted. Inside the caller's transaction; nothing happens for an agent that
 * continues from no handoff.
 */
export async function recordSuccessorActed(tx: Tx, previousAgentId: number | null, at: Date): Promise<void> {
  if (previousAgentId === null) return;
  const record = await lockRecord(tx, "agent_id", previousAgentId);
  if (!record || record.acted_at) return;
  await recordStep(tx, record, "acted", { actedAt: at });
}
