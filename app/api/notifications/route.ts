import { latestChangeSeq } from "@/lib/changes";
import { z } from "zod";
import { errorResponse } from "@/lib/http";
import { parseInput, wholeNumberParam } from "@/lib/validation";
import { failedDeliveriesAfter, latestDeliveryId } from "@/lib/webhooks";

export const dynamic = "force-dynamic";

const querySchema = z.object({ after_delivery: wholeNumberParam("after_delivery", 0, Number.MAX_SAFE_INTEGER) });

/**
 * What the dashboard's browser notifications start from and poll: the latest change seq (the
 * question watcher subscribes to /api/events after it), the latest delivery id, and, with
 * `after_delivery`, the webhook deliveries that gave up since.
 */
export function GET(request: Request) {
  try {
    const query = parseInput(querySchema, { after_delivery: new URL(request.url).searchParams.get("after_delivery") ?? undefined });
    const failed = query.after_delivery === undefined ? [] : failedDeliveriesAfter(query.after_delivery);
    return Response.json(
      { changeSeq: latestChangeSeq(), deliveryId: Math.max(latestDeliveryId(), query.after_delivery ?? 0), failed },
      { headers: { "cache-control": "no-store" } },
    );
  } catch (error) {
    return errorResponse(error);
  }
}
