import { quotedOneLine } from "../one-line";
import { startOf } from "./schema-helpers";
import type { QualityWarning } from "./types";

const VAGUE_START = /^(please\s+)?(continue|keep( going| working)?|resume|carry on|finish|proceed|work on|pick up|go on)\b/i;
/** Something concrete: a path or file name, a code identifier, a backticked term, a number or story id. */
const SPECIFIC = /(`[^`]+`|[\w-]+\/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b|\b[a-z]+[A-Z]\w*\b|\b\w+_\w+\b|\w+\(\)|\b[A-Z]{2,}-\d+\b|#\d+)/;
/** How much of an instruction is searched for something concrete: what it starts with says it. */
const SCANNED = 2000;

/**
 * Seed 002's bad example is "Continue working on the feature": a generic verb with nothing the
 * next agent can act on. An instruction is vague when it is very short, or starts with such a
 * verb and names nothing concrete (no file, identifier, story id …).
 */
function isVagueInstruction(text: string): boolean {
  const trimmed = text.trim();
  const words = trimmed.split(/\s+/).filter(Boolean).length;
  // Looked for in the first SCANNED characters only: the pattern backtracks through a long word
  // at every position (a 64 KiB one took 4 s of the server's time, on every preview).
  if (SPECIFIC.test(trimmed.slice(0, SCANNED))) return false;
  return words < 5 || VAGUE_START.test(trimmed);
}

export function vagueInstructionWarning(field: string, text: string): QualityWarning[] {
  if (!isVagueInstruction(text)) return [];
  return [
    {
      code: "vague_instruction",
      field,
      // Quoted escaped: a terminal prints the warning (baton import), and the instruction is anyone's text.
      message: `${quotedOneLine(startOf(text.trim(), 80))} is vague: the next agent will not know what to do first. Name the file, function or step (e.g. "Wire up handleSubmit in TaskEdit.tsx to call the updatePriority action").`,
    },
  ];
}

/** Story ids (`US-012`, `PROJ-7`) mentioned in a text. */
export function storyIdsIn(text: string): string[] {
  return [...new Set(text.match(/\b[A-Z]{2,}-\d+\b/g) ?? [])];
}
