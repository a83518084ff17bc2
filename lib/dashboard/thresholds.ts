/** Client-safe thresholds the dashboard flags by (the attention view, the context meter). */

/** An active agent at or above this share of its context is near its limit: it should hand off soon. */
export const CONTEXT_NEAR_LIMIT_PERCENT = 85;
