/** The End shift dialog's draft of an agent's shift document (components/forms/drafts.ts), forgotten once the agent has ended. */
export const shiftDocumentDraft = (agentId: number) => `shift-document.${agentId}`;
