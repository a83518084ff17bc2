import { AttentionBadge } from "@/components/live/attention-badge";
import { attentionOfRequest } from "./attention";

/**
 * The navigation's count of what waits for the operator (lib/dashboard findAttention), as this
 * render read it; the badge keeps it current from then on. A server component: the layout streams it in.
 */
export async function AttentionCount() {
  const attention = await attentionOfRequest();
  return attention ? <AttentionBadge renderedCount={attention.count} /> : null;
}
