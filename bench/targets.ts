/**
 * Every target the benchmarks hold Baton to, in one table: the figure it bounds (by the name a
 * part gives it), the bound, its unit and the issue that set it. bench/report.ts reads it to print
 * each figure's verdict; a figure named nowhere here is printed without one.
 *
 * A unit of the figure's own (ms, MB, count) bounds Baton's figure itself; "× reference" bounds
 * its ratio to the reference measured in the same run, "% of reference" its share of that
 * reference's rate.
 */
/** The unit of a figure: bench/report.ts prints each in its own way. */
export type Unit = "ms" | "MB" | "/s" | "count";
export type TargetUnit = Unit | "× reference" | "% of reference";
export type Target = { figure: string; bound: "≤" | "≥"; limit: number; unit: TargetUnit; issue: string };

export const TARGETS: readonly Target[] = [
  { figure: "stdio add_to_handoff p50", bound: "≤", limit: 0.8, unit: "ms", issue: "10, point 4" },
  { figure: "stdio get_handoff 300 entries p50", bound: "≤", limit: 2.5, unit: "ms", issue: "10, point 4" },
  { figure: "idle baton mcp resident memory", bound: "≤", limit: 90, unit: "MB", issue: "10, point 4" },
  { figure: "first baton mcp (empty folder) → tools/list", bound: "≤", limit: 700, unit: "ms", issue: "10, point 4" },
  { figure: "warm baton mcp → initialize", bound: "≤", limit: 400, unit: "ms", issue: "10, point 4" },
  { figure: "32 writers add p99", bound: "≤", limit: 100, unit: "ms", issue: "10, point 4" },
  { figure: "32 writers add max", bound: "≤", limit: 1000, unit: "ms", issue: "10, point 4" },
  { figure: "32 writers failures", bound: "≤", limit: 0, unit: "count", issue: "10, point 4" },
  { figure: "stdio get_handoff 300 entries p50, in its git repository", bound: "≤", limit: 1.3, unit: "× reference", issue: "19" },
  { figure: "hook session-start, a handoff waiting, start → exit", bound: "≤", limit: 4, unit: "× reference", issue: "19" },
  { figure: "hook session-start, nothing waiting, start → exit", bound: "≤", limit: 4, unit: "× reference", issue: "19" },
  { figure: "HTTP REST appends, 16 clients, vs bare floor", bound: "≥", limit: 35, unit: "% of reference", issue: "16" },
  { figure: "HTTP MCP appends, 16 clients, vs bare floor", bound: "≥", limit: 25, unit: "% of reference", issue: "16" },
  { figure: "HTTP REST appends, 16 clients, vs minimal floor", bound: "≥", limit: 14, unit: "% of reference", issue: "29, point 4" },
  { figure: "HTTP MCP appends, 16 clients, vs minimal floor", bound: "≥", limit: 10, unit: "% of reference", issue: "29, point 4" },
  { figure: "HTTP failed requests", bound: "≤", limit: 0, unit: "count", issue: "10, point 4" },
  { figure: "dashboard resident memory after HTTP run", bound: "≤", limit: 300, unit: "MB", issue: "16" },
  { figure: "GET / at 10k handoffs / 1M entries", bound: "≤", limit: 100, unit: "ms", issue: "10, point 4" },
  { figure: "GET /handoffs/<id>, 10,000 entries", bound: "≤", limit: 300, unit: "ms", issue: "10, point 4" },
  { figure: "write by another process → SSE event p99", bound: "≤", limit: 20, unit: "ms", issue: "29, point 3 (10, point 2: 250)" },
  { figure: "write by another process → MCP resources/updated p99", bound: "≤", limit: 20, unit: "ms", issue: "29, point 3" },
  { figure: "PostgreSQL REST appends 16 clients", bound: "≥", limit: 35, unit: "% of reference", issue: "18" },
  { figure: "PostgreSQL stdio add_to_handoff p50", bound: "≤", limit: 2, unit: "ms", issue: "18" },
  { figure: "stdio add_to_handoff p50 vs the seed's server", bound: "≤", limit: 0.9, unit: "× reference", issue: "29, point 1" },
  { figure: "stdio add_to_handoff p95 vs the seed's server", bound: "≤", limit: 0.9, unit: "× reference", issue: "29, point 1" },
  { figure: "stdio get_handoff 300 entries p50 vs the seed's server", bound: "≤", limit: 0.9, unit: "× reference", issue: "29, point 1" },
  { figure: "stdio get_handoff 300 entries p95 vs the seed's server", bound: "≤", limit: 0.9, unit: "× reference", issue: "29, point 1" },
  { figure: "stdio spawn → first tools/list vs the seed's server", bound: "≤", limit: 0.8, unit: "× reference", issue: "29, point 1" },
  { figure: "search p50", bound: "≤", limit: 100, unit: "ms", issue: "17, acceptance 3" },
  { figure: "search p95", bound: "≤", limit: 50, unit: "ms", issue: "29, point 2" },
  { figure: "slowest search", bound: "≤", limit: 100, unit: "ms", issue: "29, point 2" },
  { figure: "PostgreSQL search p95", bound: "≤", limit: 50, unit: "ms", issue: "29, point 2" },
  { figure: "PostgreSQL slowest search", bound: "≤", limit: 100, unit: "ms", issue: "29, point 2" },
  { figure: "search p95 at 10M entries", bound: "≤", limit: 100, unit: "ms", issue: "29, point 2" },
  { figure: "history 10M/1M: GET /", bound: "≤", limit: 1.5, unit: "× reference", issue: "29, point 5" },
  { figure: "history 10M/1M: GET /handoffs/<id>, 10,000 entries", bound: "≤", limit: 1.5, unit: "× reference", issue: "29, point 5" },
  { figure: "history 10M/1M: GET /handoffs/<id>, typical thread", bound: "≤", limit: 1.5, unit: "× reference", issue: "29, point 5" },
  { figure: "history 10M/1M: stdio get_handoff, 10,000 entries", bound: "≤", limit: 1.5, unit: "× reference", issue: "29, point 5" },
  { figure: "history 10M/1M: stdio get_handoff, typical thread", bound: "≤", limit: 1.5, unit: "× reference", issue: "29, point 5" },
  { figure: "history 10M/1M: attention view (uncached, in process)", bound: "≤", limit: 1.5, unit: "× reference", issue: "29, point 5" },
  { figure: "history 10M/1M: hook session-start, start → exit", bound: "≤", limit: 1.5, unit: "× reference", issue: "29, point 5" },
];
