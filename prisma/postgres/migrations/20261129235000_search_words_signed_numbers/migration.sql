-- Written by hand, PostgreSQL only: numbers after a `-` or a `+` are searchable, as on SQLite.
-- PostgreSQL's text search parser reads `-29` or `+5` as one signed number, so in `2026-11-29`,
-- `BAT-123`, `utf-8`, `x86-64`, `10-20`, `UTC-5` or `1e-5` the words `11`, `29`, `123`, `8`,
-- `64`, `20`, `5` found nothing, where FTS5 splits at every character that is no letter or digit.
-- `baton_search_words` (prisma/postgres/migrations/*_search_words_in_paths) now turns `-` and `+`
-- into spaces too, one for one (lib/search/postgres.ts's SEARCH_WORD_BREAKS is this list); a
-- hyphenated word is then its words, which the parser already indexed besides the whole.
CREATE OR REPLACE FUNCTION "baton_search_words"(content text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN translate(content, '/.@<&-+', '       ');

-- The stored vectors and the expression index are computed again with the new words.
DROP INDEX "handoff_entries_search_idx";
ALTER TABLE "handoff_entries" DROP COLUMN "search_vector";
ALTER TABLE "handoff_entries" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS ("baton_search_entry"("content")) STORED;
CREATE INDEX "handoff_entries_search_idx" ON "handoff_entries" USING GIN ("search_vector");
REINDEX INDEX "handoff_search_texts_search_idx";
