import type { SourceFormat } from "./types";

/**
 * The seeds' own example documents: seed 001's bundle and seed 003's handoff.yaml verbatim;
 * seed 002 shows only a template, so its handoff.json is filled from the seed's field guidelines
 * (its "good" instruction, a 60% mid-story handoff). The import page offers them as examples.
 */
export const EXAMPLE_DOCUMENTS: Record<SourceFormat, { fileName: string; text: string }> = {
  bundle: {
    fileName: "context-bundle.json",
    text: `{
  "schema": "rip.handoff_context_bundle.v1",
  "summary_markdown": "### Summary\\n- …\\n",
  "refs": {
    "threads": [
      {
        "thread_id": "11111111-1111-1111-1111-111111111111",
        "seq": 42,
        "message_id": "22222222-2222-2222-2222-222222222222",
        "note": "source cut"
      }
    ],
    "artifacts": [],
    "files": []
  }
}
`,
  },
  handoff_json: {
    fileName: "handoff.json",
    text: `{
  "timestamp": "2026-01-17T10:30:00Z",
  "reason": "context_threshold",
  "current_story": {
    "id": "US-042",
    "title": "Edit task priority from the task card",
    "progress_percent": 60,
    "status": "implementing"
  },
  "work_in_progress": {
    "files_modified": ["src/components/TaskEdit.tsx", "src/app/tasks/actions.ts"],
    "uncommitted_changes": "Dropdown styling in TaskEdit.tsx",
    "last_completed_step": "Priority dropdown UI renders with the four levels",
    "next_steps": [
      "Wire up the handleSubmit function to call the updatePriority server action",
      "Add an optimistic update to the task list"
    ]
  },
  "context_learned": [
    "Server actions live in src/app/tasks/actions.ts and must call revalidatePath('/tasks')"
  ],
  "blockers": [],
  "handoff_instruction": "Continue implementing the save handler in TaskEdit.tsx - dropdown UI is done, need to wire up the server action"
}
`,
  },
  handoff_yaml: {
    fileName: "handoff.yaml",
    text: `# .flow-guardian/handoff.yaml
goal: "Implement user authentication with JWT"
status: in_progress  # in_progress | completed | blocked
now: "Debugging token expiry in auth.py"
hypothesis: "Off-by-one error in timestamp comparison"
outcome: null  # null until resolved, then "success" or description
files:
  - src/auth.py
  - tests/test_auth.py
branch: fix/jwt-expiry
timestamp: 2026-01-17T10:30:00Z
session_id: "abc123"  # Claude Code session ID
`,
  },
};
