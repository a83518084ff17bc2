import { Badge } from "@/components/ui/badge";
import type { DeliveryProblem } from "@/lib/agents/delivery-states";

/**
 * A shift prompt that did not arrive, said where an agent appears (the agent list, a continuity
 * chain): on the one that handed off (`own`) and on its successor (`arrival`); flagged while Retry
 * can still deliver it, said plainly once the successor has ended.
 */
export function DeliveryFlags({ own, arrival }: { own: DeliveryProblem | null; arrival: DeliveryProblem | null }) {
  return (
    <>
      {own?.kind === "stalled" && (
        <Badge tone="red" wrap title="Its successor's pane did not get the injection prompt: open this agent to retry">
          Prompt did not arrive (at its successor)
        </Badge>
      )}
      {own?.kind === "successor ended" && (
        <Badge tone="slate" wrap title={own.message}>
          Prompt not delivered (its successor has ended)
        </Badge>
      )}
      {arrival?.kind === "stalled" && (
        <Badge tone="red" wrap title="The injection prompt did not reach this agent's pane: open its predecessor to retry">
          Prompt did not arrive
        </Badge>
      )}
      {arrival?.kind === "successor ended" && (
        <Badge tone="slate" wrap title={arrival.message}>
          Prompt not delivered (ended since)
        </Badge>
      )}
    </>
  );
}
