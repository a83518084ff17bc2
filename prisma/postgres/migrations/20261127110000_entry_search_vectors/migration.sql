-- Each entry's tsvector, stored beside its content (written by hand, like the full-text search
-- it serves; Prisma models no generated column and its schema diffs never see this one). A
-- search reads the newest matches of a word by walking entries newest first and testing each,
-- or through the GIN index, whichever the planner expects to be cheaper; testing an entry
-- against an index expression parsed its text again, so a word in one entry of thirty took
-- 0.8 s at a million entries, and ranking parsed each candidate once more. A stored vector is
-- tested and ranked as it is. PostgreSQL's text search documentation recommends it for speed.
-- It costs the space of the vectors (about a third of the entries' own); adding it rewrites the
-- table once.
DROP INDEX "handoff_entries_search_idx";
ALTER TABLE "handoff_entries" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS ("baton_search_entry"("content")) STORED;
CREATE INDEX "handoff_entries_search_idx" ON "handoff_entries" USING GIN ("search_vector");
