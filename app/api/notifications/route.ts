import { z } from "zod";
import { latestChangeSeq } from "@/lib/changes";
import { errorResponse } from "@/lib/http";
import { parseInput, wholeNumberParam } from "@/lib/validation";
import { failedDeliveriesSince } from "@/lib/webhooks";

export const dynamic = "force-dynamic";

const querySchema = z.object({ after_attempt: wholeNumberParam("after_attempt", 0, Number.MAX_SAFE_INTEGER) });

/**
 * What the dashboard's browser notifications start from and poll: the latest change seq (the
 * question watcher subscribes to /api/events after it), the delivery attempt id to poll after,
 * and, with `after_attempt`, the webhook deliveries that gave up since.
 */
export function GET(request: Request) {
  try {
    const query = parseInput(querySchema, { after_attempt: new URL(request.url).searchParams.get("after_attempt") ?? undefined });
    const changeSeq = latestChangeSeq();
    return Response.json({ changeSeq, ...failedDeliveriesSince(query.after_attempt) }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
