/**
 * Typed domain errors. Every door maps them through `httpStatusOf` (HTTP), tool errors (MCP),
 * returned form state (server actions) or an exit code (CLI); the message is always written
 * for the person or model reading it.
 */
export type DomainErrorCode = "NOT_FOUND" | "CONFLICT" | "INVALID" | "FORBIDDEN" | "UNAVAILABLE";

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
}

export class NotFound extends DomainError {
  readonly code = "NOT_FOUND" as const;
  name = "NotFound";
}

export class Conflict extends DomainError {
  readonly code = "CONFLICT" as const;
  name = "Conflict";
}

/** An error about particular fields: `fieldErrors` maps a field path (`current_story.progress_percent`) to its messages. */
export abstract class FieldsError extends DomainError {
  constructor(
    message: string,
    readonly fieldErrors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

/** Bad input. */
export class Invalid extends FieldsError {
  readonly code = "INVALID" as const;
  name = "Invalid";
}

/** The caller may not do this (lib/caller.ts says who may): the request was valid, the caller is wrong for it. */
export class Forbidden extends FieldsError {
  readonly code = "FORBIDDEN" as const;
  name = "Forbidden";
}

/** The database does not answer (a restart, a lost network): nothing was stored; the same request may be sent again. */
export class Unavailable extends DomainError {
  readonly code = "UNAVAILABLE" as const;
  name = "Unavailable";
}

export const httpStatusOf: Record<DomainErrorCode, number> = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID: 400,
  FORBIDDEN: 403,
  UNAVAILABLE: 503,
};

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
