"use client";

import { unstable_isUnrecognizedActionError, unstable_rethrow } from "next/navigation";
import { useCallback, useEffect, useSyncExternalStore } from "react";
import { formValues, withoutPreviousState, type FormAction, type FormState } from "@/lib/form-state";
import { actionRefusalOf } from "@/lib/guard/action-refusal";

/**
 * Nothing typed is lost (issue 28, point 1): what a person writes in a form is kept in this
 * browser per form (a thread's reply, a new handoff) until it is sent, across navigation and
 * reloads, and a post the server never answered keeps its text with a retry beside it.
 */
const PREFIX = "baton.draft.";

// Drafts as this tab last saw them: the text box shows these, so typing works even where
// localStorage is missing or full (private windows, quotas); there a draft is just not kept.
const current = new Map<string, string>();

function stored(key: string): string {
  let text = current.get(key);
  if (text === undefined) {
    try {
      text = localStorage.getItem(PREFIX + key) ?? "";
    } catch {
      text = "";
    }
    current.set(key, text);
  }
  return text;
}

function store(key: string, text: string): void {
  current.set(key, text);
  try {
    if (text) localStorage.setItem(PREFIX + key, text);
    else localStorage.removeItem(PREFIX + key);
  } catch {
    // Not kept; the text box still holds it.
  }
}

// Every draft change in this tab, for the hooks reading drafts (other tabs get the storage event).
const DRAFT_EVENT = "baton:draft";

function subscribe(changed: () => void): () => void {
  // Another tab saved or sent a draft: read them again.
  const fromOtherTab = () => {
    current.clear();
    changed();
  };
  window.addEventListener(DRAFT_EVENT, changed);
  window.addEventListener("storage", fromOtherTab);
  return () => {
    window.removeEventListener(DRAFT_EVENT, changed);
    window.removeEventListener("storage", fromOtherTab);
  };
}

function save(key: string, text: string): void {
  store(key, text);
  window.dispatchEvent(new Event(DRAFT_EVENT));
}

export function forgetDraft(key: string): void {
  save(key, "");
}

/** Forgets every draft in this browser: on sign-out, what one operator typed is not left for the next. */
export function forgetAllDrafts(): void {
  current.clear();
  try {
    for (const key of Object.keys(localStorage)) if (key.startsWith(PREFIX)) localStorage.removeItem(key);
  } catch {
    // Nothing was kept.
  }
  window.dispatchEvent(new Event(DRAFT_EVENT));
}

/**
 * A text field's value, kept as the draft `key`. The server renders the empty form; the browser
 * then shows the draft, and every change is saved at once.
 */
export function useDraft(key: string): [string, (text: string) => void] {
  const text = useSyncExternalStore(
    subscribe,
    () => stored(key),
    () => "",
  );
  const update = useCallback((value: string) => save(key, value), [key]);
  return [text, update];
}


/** What a form says when the server no longer knows this page's actions (keepingUnsent). */
const UPDATED_SINCE_LOADED = "Not sent: Baton was updated after this page was loaded. Reload the page and send again; what you wrote is kept here.";

/**
 * `action` for useActionState, where a request that got no answer (the server stopped, the
 * network gone, a 5xx before the action ran) becomes an `unsent` state that keeps the values,
 * instead of the error page, and one the guard refused says why (a body over its limit: too
 * large), keeping them too, and one a newer build of the server does not know asks for a reload;
 * `onSuccess` runs once the server accepted it. The action is not sent
 * the previous state (withoutPreviousState).
 */
export function keepingUnsent(action: FormAction, onSuccess?: () => void): FormAction {
  const send = withoutPreviousState(action);
  return async (previous, formData) => {
    let next: FormState;
    try {
      next = await send(previous, formData);
    } catch (error) {
      // Next's own signals (a redirect after success) are not failures.
      unstable_rethrow(error);
      // The server answered, but runs a newer build than this page (Baton upgraded or rebuilt
      // while the tab was open): the action this page names is gone, so Retry could never work.
      if (unstable_isUnrecognizedActionError(error)) return { status: "error", message: UPDATED_SINCE_LOADED, values: formValues(formData) };
      const refused = error instanceof Error ? actionRefusalOf(error.message) : null;
      if (refused?.status === 413) {
        return { status: "error", message: `Not sent: too large for the server (${refused.reason}). Shorten it and send again; what you wrote is kept here.`, values: formValues(formData) };
      }
      if (refused) return { status: "error", message: `Not sent: the server refused it (${refused.reason}). What you wrote is kept here.`, values: formValues(formData) };
      return { status: "error", unsent: true, message: "Not sent: the server did not answer. What you wrote is kept here.", values: formValues(formData) };
    }
    if (next.status === "success") onSuccess?.();
    return next;
  };
}

/** Forgets the draft `name` once shown: for a form whose success is a redirect (a new handoff). */
export function ForgetDraft({ name }: { name: string }) {
  useEffect(() => forgetDraft(name), [name]);
  return null;
}
