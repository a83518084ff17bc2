import { NextResponse } from "next/server";
import { requestCaller } from "./lib/caller";

/**
 * A tripwire, not the guard: lib/guard screens every request in Baton's own server before Next
 * sees it and runs Next under the caller it decided (lib/caller.ts). A request without a caller
 * reached a Next started some other way (plain `next start`), where nothing checked Host, Origin
 * or credentials: refuse it.
 */
export function proxy(): NextResponse {
  if (requestCaller() === null) {
    return NextResponse.json(
      { error: { code: "UNGUARDED", message: "this server was not started through Baton's guard; start it with `npm start`" } },
      { status: 503 },
    );
  }
  return NextResponse.next();
}
