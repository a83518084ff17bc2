import { httpStatusOf, Invalid, isDomainError } from "./errors";

/** The JSON body of an API error. */
export type ApiError = { error: { code: string; message: string; fieldErrors?: Record<string, string[]> } };

/** Maps a thrown error to a JSON response: typed domain errors keep their status and message. */
export function errorResponse(error: unknown): Response {
  if (isDomainError(error)) {
    const body: ApiError = {
      error: {
        code: error.code,
        message: error.message,
        ...(error instanceof Invalid && { fieldErrors: error.fieldErrors }),
      },
    };
    return Response.json(body, { status: httpStatusOf[error.code] });
  }
  console.error(error);
  return Response.json({ error: { code: "INTERNAL", message: "internal error; see the server log" } } satisfies ApiError, {
    status: 500,
  });
}

/** Runs an API handler, answering its result as JSON and its errors through `errorResponse`. */
export async function jsonRoute<T>(handler: () => Promise<T>, status = 200): Promise<Response> {
  try {
    return Response.json(await handler(), { status });
  } catch (error) {
    return errorResponse(error);
  }
}

/** The request's JSON body, or an Invalid saying it is not JSON. */
export async function readJsonBody(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new Invalid("the request body must be JSON");
  }
}
