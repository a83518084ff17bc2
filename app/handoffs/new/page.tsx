import type { Metadata } from "next";
import { NewHandoffForm } from "@/components/handoffs/new-handoff-form";
import { PageHeader } from "@/components/ui/page-header";
import { currentCaller, defaultSideOf } from "@/lib/caller";

export const metadata: Metadata = { title: "New handoff" };

export default function NewHandoffPage() {
  return (
    <>
      <PageHeader
        title="New handoff"
        description="Start a thread. You get an ID to paste into the other client (Claude Code or Claude Desktop)."
      />
      <NewHandoffForm defaultSide={defaultSideOf(currentCaller())} />
    </>
  );
}
