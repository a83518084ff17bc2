/**
 * lib/secrets: secrets never stored. Every text that enters Baton (titles, entries, shift
 * documents, imports, checkpoints) passes `cleanText` / `cleanFields` (documents: documents.ts) before it is written:
 * secretlint's recommended rules run synchronously (scan.ts) plus Baton's own tokens, JWTs, PEM
 * keys, `.env` assignments and a high-entropy check; the policy (`BATON_SECRETS`) redacts, refuses
 * or lets through. What was stored before is swept by lib/jobs/secrets-sweep.ts (`baton secrets
 * scan`): each table's owner rewrites its own rows with the redactor of stored-redactor.ts.
 */
import "server-only";
import { Invalid, Unavailable } from "../errors";
import { describeFieldErrors } from "../validation";
import { documentSecrets, redactDocument } from "./documents";
import { findSecrets, withMarkers, type SecretHit } from "./scan";

export { findSecrets, type SecretHit } from "./scan";

/**
 * What Baton does with a secret in a text it is about to store (`BATON_SECRETS`): `redact`
 * (the default) replaces it with `[redacted: <kind>]`, `refuse` refuses the whole write,
 * `off` stores it as given.
 */
const SECRETS_POLICIES = ["redact", "refuse", "off"] as const;
export type SecretsPolicy = (typeof SECRETS_POLICIES)[number];

/**
 * BATON_SECRETS, unset or blank meaning `redact`. Any other value is refused, by the server as it
 * starts and by every write, in one line: a typo (`refuze`, `of`) used to be read as `redact`
 * without a word, so an operator who set `refuse` stored redacted secrets instead.
 */
export function secretsPolicy(): SecretsPolicy {
  const value = process.env.BATON_SECRETS?.trim().toLowerCase() || "redact";
  const policy = SECRETS_POLICIES.find((known) => known === value);
  if (policy) return policy;
  // Unquoted: the CLI's one line would show JSON's quotes escaped.
  throw new Unavailable(`BATON_SECRETS is ${process.env.BATON_SECRETS?.trim()}: set it to redact, refuse or off, or leave it unset for redact`);
}

/** What was redacted and where, for the writer: never the value. Lines and columns count from 1. */
export type Redaction = { field: string; kind: string; line: number; column: number; offset: number };

/** Where `offset` falls in `text`: line and column, both counting from 1. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

export function describeRedaction(redaction: Redaction): string {
  return `${redaction.kind} at line ${redaction.line}, column ${redaction.column}`;
}

/** One line per redaction, for a terminal or a notice: `redacted a github token in content at line 2, column 11`. */
export function redactionLines(redactions: Redaction[]): string[] {
  return redactions.map((redaction) => `redacted a secret (${describeRedaction(redaction)}) in ${redaction.field}`);
}

function toRedactions(field: string, text: string, hits: SecretHit[]): Redaction[] {
  return hits.map((hit) => ({ field, kind: hit.kind, offset: hit.start, ...positionOf(text, hit.start) }));
}

/**
 * The refusal under `BATON_SECRETS=refuse`: an Invalid naming each field, kind and position.
 * The value is never part of it, so the message can be logged and shown.
 */
export function refusal(redactions: Redaction[]): Invalid {
  const fieldErrors: Record<string, string[]> = {};
  for (const redaction of redactions) {
    (fieldErrors[redaction.field] ??= []).push(
      `contains a secret (${describeRedaction(redaction)}); remove it: this Baton refuses secrets (BATON_SECRETS=refuse)`,
    );
  }
  return new Invalid(describeFieldErrors(fieldErrors), fieldErrors);
}

/** `json` and `yaml` documents are redacted value by value, so they still parse to the same fields. */
export type CleanOptions = { document?: "json" | "yaml" };

/** The secrets in `text`: for a document, also those its strings hold once decoded (documentSecrets). */
export function secretsIn(text: string, options: CleanOptions = {}): SecretHit[] {
  return options.document ? documentSecrets(text, options.document) : findSecrets(text);
}

/** `text` with every hit replaced by its marker. */
export function redactText(text: string, hits: SecretHit[], options: CleanOptions = {}): string {
  return options.document ? redactDocument(text, options.document) : withMarkers(text, hits);
}

/**
 * Applies the policy to the texts of one write, about to be stored: returns the texts to store
 * and what was redacted, or throws one refusal naming every field. Keys name the texts for the
 * writer (`content`, `title`, `document`).
 */
export function cleanFields<K extends string>(fields: Record<K, string>, options: CleanOptions = {}): { texts: Record<K, string>; redactions: Redaction[] } {
  const texts = { ...fields };
  const redactions: Redaction[] = [];
  const policy = secretsPolicy();
  if (policy === "off") return { texts, redactions };
  for (const field of Object.keys(fields) as K[]) {
    const hits = secretsIn(fields[field], options);
    if (hits.length === 0) continue;
    redactions.push(...toRedactions(field, fields[field], hits));
    texts[field] = redactText(fields[field], hits, options);
  }
  if (policy === "refuse" && redactions.length > 0) throw refusal(redactions);
  return { texts, redactions };
}

/** One text: see cleanFields. */
export function cleanText(field: string, text: string, options: CleanOptions = {}): { text: string; redactions: Redaction[] } {
  const cleaned = cleanFields({ [field]: text }, options);
  return { text: cleaned.texts[field], redactions: cleaned.redactions };
}
