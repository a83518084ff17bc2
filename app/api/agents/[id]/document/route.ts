import { getAgent, readHandoffDocument } from "@/lib/agents";
import { NotFound } from "@/lib/errors";
import { errorResponse } from "@/lib/http";

/** The agent's handoff document as markdown text (what its successor is told to read). */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  try {
    const agent = await getAgent({ agentId: id });
    if (!agent.handoff) throw new NotFound(`agent ${agent.shortId} has not handed off, so it has no handoff document`);
    const document = await readHandoffDocument(agent.handoff.filePath);
    if (document.status !== "ok") {
      throw new NotFound(`the handoff document of agent ${agent.shortId} cannot be shown (${document.status})`);
    }
    return new Response(document.content, {
      headers: { "content-type": "text/markdown; charset=utf-8", "x-content-type-options": "nosniff" },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
