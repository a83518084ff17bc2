-- Written by hand: a partial index, which Prisma's schema cannot state (PostgreSQL's copy is the
-- migration of the same name there). Claude Code's hooks tie a handoff to a repository by the git
-- state its latest code-side entry recorded (lib/handoffs/attention.ts, recordedGitIn): with this
-- the hook finds that entry among a thread's latest from an index, instead of reading each of
-- those entries (200 threads × 20 entries from a cold cache: about 115 ms of a 550 ms
-- SessionStart at 1,000,000 entries; 24 ms with it). Only entries that recorded a state are in it.
CREATE INDEX "handoff_entries_git_idx" ON "handoff_entries" ("handoff_id", "seq") WHERE "git" IS NOT NULL;
