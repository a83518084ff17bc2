/** The drafts of the new-handoff form (components/forms/drafts.ts), forgotten once the handoff exists. */
export const NEW_HANDOFF_DRAFT = { title: "new-handoff.title", content: "new-handoff.content" } as const;
