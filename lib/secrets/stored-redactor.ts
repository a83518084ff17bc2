import "server-only";
import { positionOf, redactText, secretsIn, type CleanOptions } from "./index";

/** One secret found in stored data: where it is and what kind, never the value. */
export type StoredFinding = { place: string; kind: string; line: number; column: number };

/**
 * What a sweep of stored data (lib/jobs/secrets-sweep.ts) hands each table's owner: called with a
 * stored text and where it is (`entry #12 of hof_…`), it notes the secrets found and answers the
 * text to store instead, or null to leave the text as it is (nothing found, or a sweep that only
 * reports). The owner rewrites its own rows; nothing here touches a table.
 */
export type StoredTextRedactor = (place: string, text: string, options?: CleanOptions) => string | null;

/** A redactor for one sweep, with what it found and how many texts it had rewritten. */
export function storedTextRedactor(redact: boolean): { redactor: StoredTextRedactor; findings: StoredFinding[]; cleaned: () => number } {
  const findings: StoredFinding[] = [];
  let cleaned = 0;
  const redactor: StoredTextRedactor = (place, text, options = {}) => {
    const hits = secretsIn(text, options);
    if (hits.length === 0) return null;
    findings.push(...hits.map((hit) => ({ place, kind: hit.kind, ...positionOf(text, hit.start) })));
    if (!redact) return null;
    cleaned += 1;
    return redactText(text, hits, options);
  };
  return { redactor, findings, cleaned: () => cleaned };
}
