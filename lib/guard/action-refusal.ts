/**
 * How the guard refuses a dashboard form's post (a server action), and how the form reads it.
 * Next's client hands a form only a text/plain answer's body (as the thrown error's message; JSON
 * becomes "An unexpected response"), so the refusal is text starting with its status: the form
 * can then tell a body too large (413) from a server that did not answer. Client-safe.
 */
const PATTERN = /^Baton refused this request \((\d{3})\): ([\s\S]*)$/;

export function actionRefusalText(status: number, reason: string): string {
  return `Baton refused this request (${status}): ${reason}`;
}

/** The refusal in an error's message, or null when it is not one (no answer, a proxy's page). */
export function actionRefusalOf(message: string): { status: number; reason: string } | null {
  const match = PATTERN.exec(message);
  return match ? { status: Number(match[1]), reason: match[2] } : null;
}
