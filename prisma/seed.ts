/**
 * `npm run db:seed`: a realistic demo in the configured data folder: a dozen threads in every
 * state (fresh, waiting on chat, waiting on code, read up, busy, completed), written through
 * the same domain functions as every door.
 */
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { closeHandoff } from "../lib/formats";
import { addEntry, createHandoff, markRead, type EntryType } from "../lib/handoffs";

type Step = [side: "chat" | "code", type: EntryType, content: string];
type Demo = { title: string; project?: string; creator?: "chat" | "code"; context: string; steps: Step[]; readBy?: ("chat" | "code")[]; close?: boolean };

const demos: Demo[] = [
  {
    title: "Implement auth system",
    project: "hlg",
    context: "We decided on **JWT with refresh tokens**.\n\n- access token: 15 min\n- refresh token: rotating, stored httpOnly\n- logout revokes the refresh family",
    steps: [
      ["code", "progress", "Read the context. Starting with the token service in `src/auth/tokens.ts`."],
      ["code", "question", "Should refresh tokens expire after **7d** or **30d**?"],
    ],
  },
  {
    title: "DnD campaign arc planning",
    project: "dnd",
    context: "We decided on a 3-act structure. Act 1: the heist at the salt mines. Act 2: the betrayal. Act 3: the siege.",
    steps: [
      ["chat", "task", "Write encounter tables for Act 1 (levels 3–5)."],
      ["code", "progress", "Encounter tables drafted in `campaign/act1/encounters.md`."],
      ["code", "done", "Act 1 encounter tables done, with a CR budget per session."],
    ],
    readBy: ["chat"],
  },
  {
    title: "Migrate billing to Stripe webhooks v2",
    project: "billing",
    context: "Move off polling. Webhook signature verification is mandatory; idempotency keys on every write.",
    steps: [
      ["code", "progress", "Webhook endpoint and signature check in place."],
      ["code", "question", "Retry storms: do we dead-letter after 5 failures or 10?"],
      ["chat", "decision", "Dead-letter after 5, alert on the first dead letter."],
    ],
  },
  {
    title: "Flaky e2e test on checkout",
    project: "shop",
    creator: "code",
    context: "The checkout spec fails 1 in 20 runs: the payment iframe loads after the click.",
    steps: [["code", "question", "Wait for the iframe's `load` event, or mock the provider in e2e?"]],
  },
  {
    title: "Design tokens for the new dashboard",
    project: "design",
    context: "Use the 8-point grid; indigo 600 as accent; contrast AA everywhere.",
    steps: [],
  },
  {
    title: "Search ranking experiment",
    project: "search",
    context: "Try BM25 + recency boost (half-life 14 days) against the current ranking.",
    steps: [
      ["code", "progress", "Offline eval harness ready; NDCG@10 baseline 0.412."],
      ["code", "progress", "BM25 + recency: NDCG@10 0.447 (+8.5%)."],
      ["chat", "decision", "Ship behind a flag to 10% of traffic."],
      ["code", "done", "Flag `search.recency_boost` live at 10%."],
    ],
    close: true,
  },
  {
    title: "Postgres 16 upgrade runbook",
    project: "infra",
    context: "Blue/green with logical replication. Downtime budget: 5 minutes.",
    steps: [
      ["code", "task", "Write the runbook, with rollback."],
      ["code", "done", "Runbook in `ops/pg16.md`; rehearsed on staging in 3m40s."],
    ],
    readBy: ["chat", "code"],
    close: true,
  },
  {
    title: "Rate limiter for the public API",
    project: "hlg",
    context: "Token bucket per API key: 100 req/min, burst 20. Return `Retry-After`.",
    steps: [
      ["code", "progress", "Redis-backed bucket done; load test at 2k rps shows p99 +0.8 ms."],
      ["chat", "question", "Does the limiter fail open or closed when Redis is down?"],
    ],
  },
  {
    title: "Onboarding email copy",
    project: "growth",
    context: "Three emails over a week. Tone: practical, no exclamation marks.",
    steps: [["chat", "task", "Draft email 1: the first handoff in five minutes."]],
    readBy: ["code"],
  },
  {
    title: "Mobile layout pass",
    project: "design",
    creator: "code",
    context: "Everything must work at 375 px: history, thread, composer.",
    steps: [
      ["code", "progress", "History and thread done; composer wraps correctly."],
      ["code", "done", "Mobile pass complete; screenshots in the PR."],
    ],
    close: true,
  },
  {
    title: "Incident review: queue backlog 2026-11-18",
    project: "infra",
    context: "Backlog reached 2.1M jobs after a deploy froze the consumer group.",
    steps: [
      ["code", "progress", "Timeline reconstructed from logs."],
      ["code", "question", "Do we want an automatic consumer restart, or only an alert?"],
      ["chat", "decision", "Alert first; automatic restart after we understand the freeze."],
      ["code", "progress", "Alert rule merged."],
    ],
    readBy: ["chat"],
  },
  {
    title: "Tidy up feature flags",
    context: "Remove flags that have been at 100% for more than 30 days.",
    steps: [],
    readBy: ["code"],
  },
];

async function seed() {
  await ensureMigrated();
  for (const demo of demos) {
    const { handoff } = await createHandoff({ title: demo.title, project: demo.project, content: demo.context, asClient: demo.creator ?? "chat" });
    for (const [asClient, type, content] of demo.steps) await addEntry({ id: handoff.id, type, content, asClient });
    for (const side of demo.readBy ?? []) await markRead({ id: handoff.id, asClient: side });
    if (demo.close) await closeHandoff({ id: handoff.id });
  }
  console.log(`seeded ${demos.length} handoffs`);
}

seed()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => closeDatabase());
