/**
 * Where sign-in may send the operator next: a path on Baton's own origin, never another host.
 * The value is resolved as a browser would resolve it (tabs and newlines dropped, `\` read as
 * `/`), so `/%09/evil.example/` and `/\evil.example` are seen for what they are.
 */
const OWN_ORIGIN = "http://baton.invalid";

export function sameOriginPath(value: unknown, fallback = "/"): string {
  if (typeof value !== "string" || !value.startsWith("/")) return fallback;
  let url: URL;
  try {
    url = new URL(value, OWN_ORIGIN);
  } catch {
    return fallback;
  }
  return url.origin === OWN_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : fallback;
}
