import "server-only";
import { z } from "zod";
import { readTransaction, writeTransaction, type Tx } from "../db";
import { Conflict, NotFound } from "../errors";
import type { HandoffRecord } from "../generated/prisma/client";
import { parseInput } from "../validation";
import { advancedState, type DeliveryState } from "./delivery-states";
import { loadAgent } from "./load";
import { resolveAgentIdIn } from "./resolve-agent-id";
import { agentRefSchema } from "./schemas";
import { outcomeOf, sendPrompt } from "./tmux-bridge";
import { shortIdOf, toHandoffRecordView, type HandoffRecordView } from "./views";

/**
 * One step of a delivery, written so steps only move forward: the state advances (never back),
 * and each step's time is kept from the first time it happened.
 */
async function recordStep(
  tx: Tx,
  record: HandoffRecord,
  state: DeliveryState,
  extra: { delivery?: string; typedAt?: Date; submittedAt?: Date; readAt?: Date; actedAt?: Date } = {},
): Promise<HandoffRecord> {
  return tx.handoffRecord.update({
    where: { id: record.id },
    data: {
      deliveryState: advancedState(record.deliveryState as DeliveryState | null, state),
      ...(extra.delivery !== undefined && { delivery: extra.delivery }),
      ...(extra.typedAt && !record.typedAt && { typedAt: extra.typedAt }),
      ...(extra.submittedAt && !record.submittedAt && { submittedAt: extra.submittedAt }),
      ...(extra.readAt && !record.readAt && { readAt: extra.readAt }),
      ...(extra.actedAt && !record.actedAt && { actedAt: extra.actedAt }),
    },
  });
}

async function updateRecord(id: number, state: DeliveryState, extra: Parameters<typeof recordStep>[3]): Promise<HandoffRecord> {
  return writeTransaction(async (tx) => {
    const current = await tx.handoffRecord.findUnique({ where: { id } });
    if (!current) throw new NotFound(`handoff record ${id} is gone (its agent was deleted)`);
    return recordStep(tx, current, state, extra);
  });
}

/**
 * Sends the record's injection prompt to `target` and records each step: typed once tmux took
 * the whole text, then submitted (the prompt seen entered) or failed with tmux's reason.
 */
export async function deliverRecord(recordId: number, target: string, prompt: string): Promise<HandoffRecordView> {
  await writeTransaction((tx) => tx.handoffRecord.update({ where: { id: recordId }, data: { deliveryAttempts: { increment: 1 } } }));
  const sent = await sendPrompt(target, prompt, async (typedAt) => {
    await updateRecord(recordId, "typed", { typedAt });
  });
  const delivery = outcomeOf(sent);
  let row: HandoffRecord;
  if (sent.step === "submitted") row = await updateRecord(recordId, "submitted", { delivery, typedAt: sent.typedAt, submittedAt: sent.submittedAt });
  else if (sent.step === "typed") row = await updateRecord(recordId, "typed", { delivery, typedAt: sent.typedAt });
  else row = await updateRecord(recordId, "failed", { delivery });
  return toHandoffRecordView(row);
}

export const retryDeliveryInput = z.object({ agentId: agentRefSchema });

export type RetryDeliveryOptions = { agentId: string | number };

/**
 * Sends a handoff's injection prompt again, to the successor's tmux target as it is now (the
 * operator may have created the pane or corrected the target since). `agentId` is the agent who
 * handed off. Refused once the successor has read its document: it no longer needs the prompt.
 */
export async function retryDelivery(options: RetryDeliveryOptions): Promise<HandoffRecordView> {
  const input = parseInput(retryDeliveryInput, options);
  const { record, target, prompt } = await readTransaction(async (tx) => {
    const agent = await loadAgent(tx, await resolveAgentIdIn(tx, input.agentId));
    const shortId = shortIdOf(agent.sessionId);
    if (!agent.handoff) throw new Conflict(`agent ${shortId} has not handed off: there is no delivery to retry`);
    const state = agent.handoff.deliveryState as DeliveryState | null;
    if (state === "read" || state === "acted") {
      throw new Conflict(`agent ${shortId}'s successor has already read its handoff document: there is nothing to deliver again`);
    }
    const prompt = agent.handoff.injectionPrompt;
    if (!prompt) throw new Conflict(`agent ${shortId}'s handoff has no injection prompt to deliver`);
    const successor = await tx.agent.findFirst({ where: { previousAgentId: agent.id }, orderBy: { id: "asc" } });
    if (!successor?.tmuxTarget) {
      throw new Conflict(`agent ${shortId}'s successor has no tmux target: set one on the successor's page (or paste the prompt yourself), then retry`);
    }
    return { record: agent.handoff, target: successor.tmuxTarget, prompt };
  });
  return deliverRecord(record.id, target, prompt);
}

/** Records that the successor fetched the document (the first time sets read_at), in the caller's transaction. */
export async function recordDocumentRead(tx: Tx, record: HandoffRecord, at: Date): Promise<HandoffRecord> {
  if (record.readAt) return record;
  return recordStep(tx, record, "read", { readAt: at });
}

/**
 * Records that `agentId` acted as a successor (reported its context): the handoff it continues
 * from moves to acted. Inside the caller's transaction; nothing happens for an agent that
 * continues from no handoff.
 */
export async function recordSuccessorActed(tx: Tx, previousAgentId: number | null, at: Date): Promise<void> {
  if (previousAgentId === null) return;
  const record = await tx.handoffRecord.findUnique({ where: { agentId: previousAgentId } });
  if (!record || record.actedAt) return;
  await recordStep(tx, record, "acted", { actedAt: at });
}
