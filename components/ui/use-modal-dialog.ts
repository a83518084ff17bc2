"use client";

import { useId, useRef } from "react";

/**
 * Wiring for a native modal <dialog>: spread `dialogProps` on the dialog, `openProps` on the
 * button that opens it and `closeProps` on a cancel button. Invoker commands make the buttons
 * work before hydration; the click handlers serve browsers without them (on the others the
 * native command runs after the handler and finds the dialog already open or closed).
 */
export function useModalDialog() {
  const id = useId();
  const ref = useRef<HTMLDialogElement>(null);
  return {
    ref,
    dialogProps: { id, ref },
    openProps: {
      commandfor: id,
      command: "show-modal" as const,
      onClick: () => {
        if (!ref.current?.open) ref.current?.showModal();
      },
    },
    closeProps: { commandfor: id, command: "close" as const, onClick: () => ref.current?.close() },
  };
}
