"use client";

import Form from "next/form";
import Link from "next/link";
import type { ReactNode } from "react";
import { buttonClass } from "./button";
import { inputClass } from "./field";
import { useHydrated } from "./use-hydrated";

/**
 * A list's filters as a GET form: they live in the URL, so a filtered view can be bookmarked or
 * shared. Remounts when the filters change so its fields show the URL's values. Its selects apply
 * themselves as they change (FilterSelect), so *Apply* serves only a page not yet hydrated (a
 * native GET submit) and is left out once it is.
 */
export function FilterForm({
  action,
  label,
  filters,
  children,
}: {
  action: string;
  label: string;
  filters: Record<string, unknown>;
  children: ReactNode;
}) {
  const filtered = Object.entries(filters).some(([key, value]) => key !== "page" && value !== undefined && value !== "");
  const hydrated = useHydrated();
  return (
    <Form
      key={JSON.stringify(filters)}
      action={action}
      className="mb-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end"
      aria-label={label}
    >
      {children}
      <div className="flex gap-2">
        {!hydrated && (
          <button type="submit" className={buttonClass("secondary")}>
            Apply
          </button>
        )}
        {filtered && (
          <Link href={action} className={buttonClass("ghost")}>
            Clear
          </Link>
        )}
      </div>
    </Form>
  );
}

type FilterOption = { value: string; label: string };

/** A labelled select that applies its filter as soon as it changes. */
export function FilterSelect({
  name,
  label,
  value,
  anyLabel,
  options,
}: {
  name: string;
  label: string;
  value: string | undefined;
  anyLabel: string;
  options: FilterOption[];
}) {
  const id = `filter-${name}`;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-700">
        {label}
      </label>
      <select
        id={id}
        name={name}
        defaultValue={value ?? ""}
        onChange={(event) => event.currentTarget.form?.requestSubmit()}
        className={`${inputClass} sm:w-auto`}
      >
        <option value="">{anyLabel}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Options whose label is their value (project tags, persona slugs). */
export const plainOptions = (values: string[]): FilterOption[] => values.map((value) => ({ value, label: value }));
