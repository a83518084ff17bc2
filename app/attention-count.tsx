import Link from "next/link";
import { attentionOfRequest } from "./attention";

/** The navigation's count of what waits for the operator (lib/dashboard findAttention), linking to the list on the desk. A server component: the layout streams it in. */
export async function AttentionCount() {
  const count = (await attentionOfRequest())?.count ?? 0;
  if (count === 0) return null;
  return (
    <Link
      href="/#attention"
      data-testid="attention-count"
      className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900 ring-1 ring-amber-300 ring-inset hover:bg-amber-200"
    >
      {count}
      <span className="sr-only"> {count === 1 ? "thing needs" : "things need"} your attention</span>
    </Link>
  );
}
