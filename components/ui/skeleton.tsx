/** Placeholder rows for loading.tsx files. */
export function Skeleton({ rows = 5, label }: { rows?: number; label: string }) {
  return (
    <div role="status" aria-live="polite" className="flex flex-col gap-3">
      <span className="sr-only">Loading {label}…</span>
      <div className="h-8 w-1/3 animate-pulse rounded bg-slate-200" />
      {Array.from({ length: rows }, (_, index) => (
        <div key={index} className="h-12 animate-pulse rounded bg-slate-200/70" />
      ))}
    </div>
  );
}
