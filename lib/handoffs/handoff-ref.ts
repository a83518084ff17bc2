import { HANDOFF_ID_PATTERN } from "./schemas";

const EMBEDDED_ID = /hof_[A-Za-z0-9_-]{21}(?![A-Za-z0-9_-])/;
const WRAPPING = /^[\s"'`“”‘’<>()[\]]+|[\s"'`“”‘’<>()[\].,;:!?]+$/g;
/**
 * Invisible format characters (Unicode's Cf: zero-width space and joiners, the word joiner, soft
 * hyphen, BOM, bidi marks). Chat apps and editors slip them into a long word they wrap, so an ID
 * copied from one carries them where nobody sees them; none can be part of an ID.
 */
const INVISIBLE = /\p{Cf}/gu;

/**
 * The handoff ID in what a person pasted: the bare ID, or one wrapped in spaces, quotes or
 * backticks, or a dashboard URL ending in it, with invisible characters inside it or not.
 * Returns null when no well-formed ID is there.
 */
export function extractHandoffId(pasted: string): string | null {
  const trimmed = pasted.replace(INVISIBLE, "").replace(WRAPPING, "");
  if (HANDOFF_ID_PATTERN.test(trimmed)) return trimmed;
  return trimmed.match(EMBEDDED_ID)?.[0] ?? null;
}
