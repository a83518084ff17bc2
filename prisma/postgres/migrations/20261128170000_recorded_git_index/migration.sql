-- Written by hand: PostgreSQL's copy of prisma/migrations/*_recorded_git_index (a partial index,
-- which Prisma's schema cannot state): the hooks find a thread's latest recorded git state from an
-- index, not by reading its latest entries.
CREATE INDEX "handoff_entries_git_idx" ON "handoff_entries" ("handoff_id", "seq") WHERE "git" IS NOT NULL;
