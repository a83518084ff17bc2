"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import type { HandoffSummary } from "@/lib/handoffs";
import { extractHandoffId } from "@/lib/handoffs/handoff-ref";
import { historyQuery, historySearch } from "@/lib/queries";
import { SEARCH_MATCH_LIMIT } from "@/lib/search/query";
import type { HighlightedText, SearchExcerpt } from "@/lib/search/types";
import { visibleBidiControls } from "@/lib/validation";
import { SourceBadge, StatusBadge, UnreadBadge } from "./handoff-badges";
import { useHistoryFilters } from "./history-filters";

/** Text with the search's matching words marked; plain text nodes only, never markup. */
function Highlighted({ text }: { text: HighlightedText }) {
  return text.map((segment, index) =>
    segment.match ? (
      <mark key={index} className="rounded-sm bg-amber-100 px-0.5 font-semibold text-slate-900">
        {visibleBidiControls(segment.text)}
      </mark>
    ) : (
      <span key={index}>{visibleBidiControls(segment.text)}</span>
    ),
  );
}

/** Where a thread opens from a result: at the entry the words were found in. */
export const resultHref = (id: string, excerpt: SearchExcerpt | null | undefined) =>
  excerpt?.in === "entry" ? `/handoffs/${id}?entry=${excerpt.number}#entry-${excerpt.number}` : `/handoffs/${id}`;

function ExcerptLine({ id, excerpt }: { id: string; excerpt: SearchExcerpt }) {
  return (
    <p data-testid="search-excerpt" className="mt-1.5 text-sm break-words text-slate-700">
      {excerpt.in === "entry" ? (
        <Link href={resultHref(id, excerpt)} data-testid="search-where" className="mr-1.5 text-xs font-medium text-indigo-700 hover:underline">
          entry #{excerpt.number}, {excerpt.type} from {excerpt.fromClient}:
        </Link>
      ) : (
        <span data-testid="search-where" className="mr-1.5 text-xs font-medium text-slate-600">
          kept summary:
        </span>
      )}
      <Highlighted text={excerpt.text} />
    </p>
  );
}

function HistoryItem({ item }: { item: HandoffSummary }) {
  const inTitle = item.match?.title.some((segment) => segment.match) ?? false;
  return (
    <li data-handoff-id={item.id} className="flex flex-col gap-2 p-4 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0">
        <Link
          href={resultHref(item.id, item.match?.excerpt)}
          className="font-semibold text-slate-900 break-words hover:text-indigo-700 hover:underline"
        >
          {item.match ? <Highlighted text={item.match.title} /> : visibleBidiControls(item.title)}
        </Link>
        {inTitle && !item.match?.excerpt && (
          <span data-testid="search-where" className="ml-2 text-xs text-slate-600">
            in the title
          </span>
        )}
        {item.match?.excerpt && <ExcerptLine id={item.id} excerpt={item.match.excerpt} />}
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-600">
          <span className="font-mono">{item.id}</span>
          {item.project && <span>project {item.project}</span>}
          <span>
            {item.entryCount} {item.entryCount === 1 ? "entry" : "entries"}
          </span>
          <span>
            last activity <RelativeTime iso={item.updatedAt} />
          </span>
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-1.5 sm:justify-end">
        <StatusBadge status={item.status} />
        <SourceBadge format={item.sourceFormat} />
        <UnreadBadge side="chat" count={item.chatUnread} />
        <UnreadBadge side="code" count={item.codeUnread} />
      </div>
    </li>
  );
}

/**
 * A handoff ID (or a link to one) pasted into the search box, the first box on the desk: titles and
 * entries do not hold it, so the search alone answered "No handoff matches" for a thread that
 * exists. The thread is offered first, as the palette and Open a handoff read a pasted ID.
 */
function PastedId({ q }: { q: string }) {
  const id = extractHandoffId(q);
  if (!id) return null;
  return (
    <p data-testid="pasted-id" className="mb-3 rounded-lg border border-indigo-200 bg-indigo-50 p-3 text-sm text-slate-800">
      That is a handoff ID:{" "}
      <Link href={`/handoffs/${id}`} className="font-mono font-medium text-indigo-700 underline break-all">
        open {id}
      </Link>
    </p>
  );
}

/**
 * Every handoff (or a search's matches, best first), for the filters in the address: it follows
 * the search box as it changes, keeping the last results on screen until the next arrive, and
 * refreshes while the page is open.
 */
export function HistoryList() {
  const filters = useHistoryFilters();
  const { data, error, isPending, isPlaceholderData } = useQuery({ ...historyQuery(filters), placeholderData: keepPreviousData });
  if (isPending) return <p className="text-sm text-slate-600">Searching…</p>;
  if (!data) {
    return (
      <p role="alert" className="text-sm text-red-700">
        Could not load the history: {error?.message ?? "no answer from the server"}.
      </p>
    );
  }
  const filtered = Object.entries(filters).some(([key, value]) => key !== "page" && value !== undefined);
  return (
    <section aria-labelledby="history-heading" aria-busy={isPlaceholderData || undefined} className={isPlaceholderData ? "opacity-70" : undefined}>
      <div className="mb-2 flex items-baseline justify-between gap-2">
        <h2 id="history-heading" className="text-base font-semibold text-slate-900">
          {filters.q ? "Search results" : "History"}
        </h2>
        <p className="text-sm text-slate-600" aria-live="polite">
          {data.capped && data.total < data.perPage ? (
            // A few handoffs hold the newest matches (one long thread, say): older ones exist, so "1+ match" would mislead.
            <>
              {data.total.toLocaleString("en")} {data.total === 1 ? "handoff" : "handoffs"} among the newest matches; older matches exist. A word more
              finds them.
            </>
          ) : data.capped ? (
            <>
              {data.total.toLocaleString("en")}+ handoffs match: the best of the newest {SEARCH_MATCH_LIMIT.toLocaleString("en")} matches first. A word
              more narrows it.
            </>
          ) : (
            <>
              {data.total.toLocaleString("en")} {data.total === 1 ? "handoff" : "handoffs"}
              {filtered ? (data.total === 1 ? " matches" : " match") : ""}
              {filters.q && data.total > 1 ? ", best match first" : ""}
            </>
          )}
        </p>
      </div>
      {filters.q && <PastedId q={filters.q} />}
      {data.items.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-600">
          {data.capped ? (
            <>No handoff among the newest matches passes these filters; older matches exist. A word more finds them.</>
          ) : filtered ? (
            <>No handoff matches these filters.</>
          ) : (
            <>
              No handoffs yet. <Link href="/handoffs/new" className="text-indigo-700 underline">Start one</Link>, or let an
              agent create one through MCP.
            </>
          )}
        </div>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white shadow-sm">
          {data.items.map((item) => (
            <HistoryItem key={item.id} item={item} />
          ))}
        </ul>
      )}
      {data.pageCount > 1 && (
        <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm">
          {data.page > 1 ? (
            <Link href={`/${historySearch(filters, data.page - 1)}`} className="text-indigo-700 hover:underline" rel="prev">
              {filters.q ? "← Better matches" : "← Newer"}
            </Link>
          ) : (
            <span />
          )}
          <span className="text-slate-600">
            Page {data.page} of {data.pageCount}
          </span>
          {data.page < data.pageCount ? (
            <Link href={`/${historySearch(filters, data.page + 1)}`} className="text-indigo-700 hover:underline" rel="next">
              {filters.q ? "More matches →" : "Older →"}
            </Link>
          ) : (
            <span />
          )}
        </nav>
      )}
    </section>
  );
}
