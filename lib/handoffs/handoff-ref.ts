import { HANDOFF_ID_PATTERN } from "./schemas";

const EMBEDDED_ID = /hof_[A-Za-z0-9_-]{21}(?![A-Za-z0-9_-])/;
const WRAPPING = /^[\s"'`“”‘’<>()[\]]+|[\s"'`“”‘’<>()[\].,;:!?]+$/g;

/**
 * The handoff ID in what a person pasted: the bare ID, or one wrapped in spaces, quotes or
 * backticks, or a dashboard URL ending in it. Returns null when no well-formed ID is there.
 */
export function extractHandoffId(pasted: string): string | null {
  const trimmed = pasted.replace(WRAPPING, "");
  if (HANDOFF_ID_PATTERN.test(trimmed)) return trimmed;
  return trimmed.match(EMBEDDED_ID)?.[0] ?? null;
}
