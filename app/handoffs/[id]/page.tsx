import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ThreadFormatsPanel } from "@/components/formats/thread-formats-panel";
import { CreatedBanner } from "@/components/thread/created-banner";
import { ThreadView } from "@/components/thread/thread-view";
import { NotFound } from "@/lib/errors";
import { getProvenance } from "@/lib/formats/get-provenance";
import { getHandoff, HANDOFF_ID_PATTERN, type HandoffThread } from "@/lib/handoffs";
import { threadQuery } from "@/lib/queries";
import { makeServerQueryClient } from "@/lib/query-client";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ as?: string; created?: string }>;
};

async function loadThread(id: string, asClient: "chat" | "code"): Promise<HandoffThread> {
  if (!HANDOFF_ID_PATTERN.test(id)) notFound();
  try {
    return await getHandoff({ id, asClient });
  } catch (error) {
    if (error instanceof NotFound) notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: id };
}

export default async function ThreadPage({ params, searchParams }: Props) {
  const [{ id }, search] = await Promise.all([params, searchParams]);
  const viewingAs = search.as === "code" ? "code" : "chat";
  const thread = await loadThread(id, viewingAs);
  const provenance = await getProvenance({ id });
  const queryClient = makeServerQueryClient();
  queryClient.setQueryData(threadQuery(id, viewingAs).queryKey, thread);
  return (
    <>
      {search.created === "1" && <CreatedBanner handoffId={id} />}
      <ThreadFormatsPanel handoffId={id} provenance={provenance} />
      <HydrationBoundary state={dehydrate(queryClient)}>
        <ThreadView handoffId={id} viewingAs={viewingAs} sourceFormat={provenance.source?.format ?? null} />
      </HydrationBoundary>
    </>
  );
}
