/**
 * Filters that live in a page's URL (the history's and /agents'), parsed with the same field
 * schemas the domain validates with, so a pattern or an enum is written once. Client-safe: the
 * server page parses them and the client's links and polling build URLs from them.
 */
import { z } from "zod";

export type SearchParams = Record<string, string | string[] | undefined>;

/** The filters a shape of field schemas yields: each present only when it made sense. */
export type UrlFilters<Shape extends Record<string, z.ZodType>> = { [Key in keyof Shape]?: Exclude<z.output<Shape[Key]>, undefined> };

/**
 * A parser and a serializer for one page's URL filters. Parsing keeps the first of repeated
 * keys, treats blank as absent and drops a value its schema refuses (a bookmark with a stale or
 * hand-edited value still opens the page). `search` writes them back, with page 1 left out.
 */
export function urlFilters<Shape extends Record<string, z.ZodType>>(shape: Shape) {
  const lenient = z.object(Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, schema.optional().catch(undefined)])));
  type Filters = UrlFilters<Shape>;
  return {
    parse(params: SearchParams): Filters {
      const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
      const parsed = lenient.parse(Object.fromEntries(Object.keys(shape).map((key) => [key, first(params[key])])));
      return Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined)) as Filters;
    },
    search(filters: Filters, page = (filters as { page?: number }).page): string {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries({ ...filters, page: page && page > 1 ? page : undefined })) {
        if (value !== undefined) params.set(key, String(value));
      }
      const search = params.toString();
      return search ? `?${search}` : "";
    },
  };
}
