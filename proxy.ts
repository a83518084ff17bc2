import { NextResponse, type NextRequest } from "next/server";
import { GUARD_HEADER, guardSecret } from "./lib/guard/stamp";

/**
 * A tripwire, not the guard: lib/guard screens every request in Baton's own server before Next
 * sees it and stamps it. A request without the stamp reached a Next started some other way
 * (plain `next start`), where nothing checked Host, Origin or credentials: refuse it.
 */
export function proxy(request: NextRequest): NextResponse {
  if (request.headers.get(GUARD_HEADER) !== guardSecret()) {
    return NextResponse.json(
      { error: { code: "UNGUARDED", message: "this server was not started through Baton's guard; start it with `npm start`" } },
      { status: 503 },
    );
  }
  return NextResponse.next();
}
