/**
 * The REST door's plumbing (lib/server/api.ts, and Next's route handlers such as a thread's
 * export): reading a JSON body within its nesting limit and turning the domain's typed errors
 * into `{error: {code, message, fieldErrors?}}` with 400/403/404/409, and 503 with Retry-After.
 */
import "server-only";
import { FieldsError, httpStatusOf, Invalid, isDomainError } from "./errors";
import { duplicateKeyRefusal } from "./json-keys";
import { jsonTooDeep, tooDeepMessage } from "./nesting";
import { utf8TextOf } from "./utf8";
import { quotedField } from "./validation";

/** The JSON body of an API error. */
export type ApiError = { error: { code: string; message: string; fieldErrors?: Record<string, string[]> } };

/** How long a client waits before sending again a request refused as Unavailable (a busy database's lock is usually let go by then). */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/** Maps a thrown error to a JSON response: typed domain errors keep their status and message. */
export function errorResponse(error: unknown): Response {
  if (isDomainError(error)) {
    const body: ApiError = {
      error: {
        code: error.code,
        message: error.message,
        ...(error instanceof FieldsError && { fieldErrors: error.fieldErrors }),
      },
    };
    // Unavailable: nothing was stored and the same request may be sent again, after this pause.
    const headers = error.code === "UNAVAILABLE" ? { "retry-after": String(UNAVAILABLE_RETRY_AFTER_S) } : undefined;
    return Response.json(body, { status: httpStatusOf[error.code], headers });
  }
  console.error(error);
  return Response.json({ error: { code: "INTERNAL", message: "internal error; see the server log" } } satisfies ApiError, {
    status: 500,
  });
}

export const NOT_UTF8 = "the request body is not valid UTF-8; send JSON encoded as UTF-8";

/** A request's body as text, or null when it is not valid UTF-8 (utf8TextOf). */
export async function utf8BodyOf(request: Request): Promise<string | null> {
  return utf8TextOf(await request.arrayBuffer());
}

/**
 * The request's JSON object body (an empty body is `{}`), or an Invalid saying what is wrong.
 * Fields are not checked here: the domain function that receives them validates every one.
 */
export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await utf8BodyOf(request);
  if (text === null) throw new Invalid(NOT_UTF8);
  if (text.trim() === "") return {};
  const deep = jsonTooDeep(text);
  if (deep) throw new Invalid(tooDeepMessage("the request body", deep));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Invalid("the request body must be JSON");
  }
  const duplicate = duplicateKeyRefusal(text, "the request body");
  if (duplicate) throw new Invalid(duplicate);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Invalid("the request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** snake_case as MCP spells its arguments: lower-case words joined by `_`. */
const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/**
 * `body` with its snake_case field names (`as_client`, `repo_path`: MCP's spelling, which scripts
 * copy from MCP calls) read as the camelCase ones REST takes (`asClient`, `repoPath`), in nested
 * objects too (`successor.tmux_target`). A field given both ways is refused: which one was meant
 * cannot be told. Field names the operation does not take stay as they are, for the operation to
 * refuse by name (lib/validation.ts operationInput).
 */
export function camelCaseFields(body: Record<string, unknown>, path = ""): Record<string, unknown> {
  const fields = new Map<string, unknown>();
  const spelledAs = new Map<string, string>();
  for (const [given, value] of Object.entries(body)) {
    const field = SNAKE_CASE.test(given) ? given.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()) : given;
    const earlier = spelledAs.get(field);
    if (earlier !== undefined) {
      // Both spellings are plain words; the path above them is the caller's and is quoted.
      const where = quotedField(`${path}${field}`);
      const message = `given twice, as ${earlier} and as ${given}: send one`;
      throw new Invalid(`${where}: ${message}`, { [where]: [message] });
    }
    spelledAs.set(field, given);
    const nested = typeof value === "object" && value !== null && !Array.isArray(value);
    fields.set(field, nested ? camelCaseFields(value as Record<string, unknown>, `${path}${field}.`) : value);
  }
  // Object.fromEntries defines each name as the object's own, `__proto__` included.
  return Object.fromEntries(fields);
}
