import type { ReactNode } from "react";

/** A labelled control with its errors announced in an aria-live region. */
export function Field({
  id,
  label,
  hint,
  errors,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  errors?: string[];
  children: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      {children}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-slate-600">
          {hint}
        </p>
      )}
      <FieldMessages id={`${id}-error`} messages={errors} />
    </div>
  );
}

/** Error messages announced in an aria-live region (a field's, a group's or the form's own). */
export function FieldMessages({ id, messages }: { id?: string; messages?: string[] }) {
  return (
    <div id={id} aria-live="polite" className="text-sm text-red-700">
      {messages?.map((message) => <p key={message}>{message}</p>)}
    </div>
  );
}

export const inputClass =
  "w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-500 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 aria-[invalid=true]:border-red-500";
