import Link from "next/link";
import type { ChainNode } from "@/lib/agents";
import { visibleBidiControls } from "@/lib/validation";

/** One-time notices after registering an agent or ending its shift (from the URL). */
export function AgentBanners({ registered, handedOff, successor }: { registered: boolean; handedOff: boolean; successor: ChainNode | undefined }) {
  if (!registered && !handedOff) return null;
  return (
    <div role="status" className="mb-4 rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900">
      {registered && <p>Agent registered. It can report its context and hand off through MCP with its session id.</p>}
      {handedOff && (
        <p>
          Shift ended.{" "}
          {successor ? (
            <>
              The successor{" "}
              <Link href={`/agents/${successor.id}`} className="font-semibold underline">
                {visibleBidiControls(successor.name)} {successor.shortId}
              </Link>{" "}
              continues from the shift document.
            </>
          ) : (
            "The successor continues from the shift document."
          )}
        </p>
      )}
    </div>
  );
}
