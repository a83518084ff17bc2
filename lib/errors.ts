/**
 * Typed domain errors. Every door maps them through `httpStatusOf` (HTTP), tool errors (MCP),
 * returned form state (server actions) or an exit code (CLI); the message is always written
 * for the person or model reading it.
 */
export type DomainErrorCode = "NOT_FOUND" | "CONFLICT" | "INVALID" | "FORBIDDEN" | "UNAVAILABLE";

/** Marks an error of this module, whichever copy of it made the error (see DomainError's instanceof). */
const DOMAIN_ERROR = Symbol.for("baton.DomainError");

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
  readonly [DOMAIN_ERROR] = true;
  /** The codes an instance of this class carries (each class of this module says its own). */
  static readonly codes: readonly DomainErrorCode[] = ["NOT_FOUND", "CONFLICT", "INVALID", "FORBIDDEN", "UNAVAILABLE"];

  /**
   * `instanceof` that also knows this module's other copies. `npm start` runs two bundles in one
   * process, Next's build and Baton's own server (esbuild), which share one database object
   * (globalThis): an Unavailable its layer threw, from the bundle that opened it, was no
   * DomainError to the other, and a server action answered a busy database with a 500. An error
   * of another copy counts by its brand and code; minifiers keep neither from being compared.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== "object" || value === null || (value as { [DOMAIN_ERROR]?: unknown })[DOMAIN_ERROR] !== true) return false;
    // A class declared elsewhere (none yet) inherits `codes` without standing for them all: only its own copy counts.
    return Object.hasOwn(this, "codes") && (this as unknown as typeof DomainError).codes.includes((value as { code?: DomainErrorCode }).code!);
  }
}

export class NotFound extends DomainError {
  static readonly codes = ["NOT_FOUND"] as const;
  readonly code = "NOT_FOUND" as const;
  name = "NotFound";
}

export class Conflict extends DomainError {
  static readonly codes = ["CONFLICT"] as const;
  readonly code = "CONFLICT" as const;
  name = "Conflict";
}

/** An error about particular fields: `fieldErrors` maps a field path (`current_story.progress_percent`) to its messages. */
export abstract class FieldsError extends DomainError {
  static readonly codes: readonly DomainErrorCode[] = ["INVALID", "FORBIDDEN"];
  constructor(
    message: string,
    readonly fieldErrors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

/** Bad input. */
export class Invalid extends FieldsError {
  static readonly codes = ["INVALID"] as const;
  readonly code = "INVALID" as const;
  name = "Invalid";
}

/** The caller may not do this (lib/caller.ts says who may): the request was valid, the caller is wrong for it. */
export class Forbidden extends FieldsError {
  static readonly codes = ["FORBIDDEN"] as const;
  readonly code = "FORBIDDEN" as const;
  name = "Forbidden";
}

/** The database does not answer (a restart, a lost network): nothing was stored; the same request may be sent again. */
export class Unavailable extends DomainError {
  static readonly codes = ["UNAVAILABLE"] as const;
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
