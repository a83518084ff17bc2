/**
 * What a server action hands back to its form (`useActionState`): the outcome, a message and
 * per-field errors, built from the domain's typed errors. Client-safe: forms start from
 * `idleFormState`.
 */
import { Invalid, isDomainError } from "./errors";

/** What a server action returns to `useActionState`. */
export type FormState = {
  status: "idle" | "error" | "success";
  message?: string;
  fieldErrors?: Record<string, string[]>;
  /** The submitted values, so a refused form keeps what the person typed. */
  values?: Record<string, string>;
  /** Changes on every success, so a form can reset itself. */
  successAt?: number;
  /** Things the person should know about a success, e.g. secrets redacted before storing. */
  notices?: string[];
  /** The request got no answer (the server stopped, the network went away): nothing was stored, the form offers to send again. */
  unsent?: boolean;
};

export const idleFormState: FormState = { status: "idle" };

/** A form's action as useActionState calls it. */
export type FormAction = (previous: FormState, formData: FormData) => Promise<FormState>;

/**
 * `action` for useActionState, handed the idle state instead of the form's previous one. React
 * passes the previous state to the action, and a server action posts every argument it is given:
 * after a refusal, whose state holds everything typed (`values`), each post carried the text twice
 * and a long one crossed the page's body limit. No action reads the previous state. Every form
 * with useActionState goes through this (keepingUnsent does): a state can hold what was typed, or a
 * secret shown once (a new token's, a webhook's), which the next post would carry back.
 */
export function withoutPreviousState<State extends FormState>(action: (previous: FormState, formData: FormData) => Promise<State>): (previous: State, formData: FormData) => Promise<State> {
  return (_previous, formData) => action(idleFormState, formData);
}

/**
 * A field's text as the person typed it. A form sends a text area's line breaks as CRLF (HTML's
 * form encoding): entries posted from the desk were stored with CRLF where every other door
 * stores LF, and a document was longer than the one loaded. JSON and YAML read either break alike.
 */
export const typedText = (text: string) => text.replace(/\r\n/g, "\n");

/** The form's text fields as plain strings, as typed. */
export function formValues(formData: FormData): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of formData.entries()) {
    if (typeof value === "string" && !key.startsWith("$")) values[key] = typedText(value);
  }
  return values;
}

/**
 * A domain error as form state: field errors go beside their fields (by the names in
 * `fieldNames`, domain name → form field name), everything else becomes the form's message.
 * Errors that are not the domain's are rethrown for the route's error boundary.
 */
export function formStateFromError(
  error: unknown,
  values: Record<string, string>,
  fieldNames: Record<string, string> = {},
): FormState {
  if (!isDomainError(error)) throw error;
  if (error instanceof Invalid && Object.keys(error.fieldErrors).length > 0) {
    const fieldErrors: Record<string, string[]> = {};
    for (const [field, messages] of Object.entries(error.fieldErrors)) {
      (fieldErrors[fieldNames[field] ?? field] ??= []).push(...messages);
    }
    return { status: "error", message: "Please correct the highlighted fields.", fieldErrors, values };
  }
  return { status: "error", message: error.message, values };
}

/**
 * After a refused submit, where the person fixes it: the first field marked invalid, else the
 * form's message (`data-form-error`, focusable with tabIndex -1). Without it focus falls to the
 * page when the submit button is disabled while sending. Client-side only (it reads the DOM).
 */
export function focusFirstInvalid(form: HTMLFormElement | null): void {
  const target = form?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form?.querySelector<HTMLElement>("[data-form-error]");
  target?.focus();
}
