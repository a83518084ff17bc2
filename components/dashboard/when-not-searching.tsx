"use client";

import type { ReactNode } from "react";
import { useHistoryFilters } from "@/components/handoffs/history-filters";

/** What the desk shows above the history only while nothing is searched or filtered: results then take its place, right under the box. */
export function WhenNotSearching({ children }: { children: ReactNode }) {
  const filters = useHistoryFilters();
  const searching = Object.entries(filters).some(([key, value]) => key !== "page" && value !== undefined);
  return searching ? null : children;
}
