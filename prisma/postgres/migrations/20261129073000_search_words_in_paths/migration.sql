-- Written by hand, PostgreSQL only: words inside paths, e-mail addresses, URLs, dotted names and
-- angle brackets are searchable, as on SQLite. PostgreSQL's text search parser reads
-- `lib/auth/session.ts` as one `file` token, `ops@example.com` as an `email`, `github.com` as a
-- `host`, `1.2.3` as a `version` and `<Suspense>` as an HTML tag (left out), so `session`,
-- `example`, `github` or `Suspense` found nothing there, where FTS5 splits at every character
-- that is no letter or digit. `baton_search_words` turns the characters that start those tokens
-- into spaces before parsing, one for one (ts_headline's passages map back onto the original
-- text: lib/search/postgres.ts, whose SEARCH_WORD_BREAKS is this list); `-` and `_` stay, as the
-- parser already splits at them.
CREATE FUNCTION "baton_search_words"(content text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN translate(content, '/.@<&', '     ');

-- The stored vectors and the expression index are computed again with the new words.
DROP INDEX "handoff_entries_search_idx";
ALTER TABLE "handoff_entries" DROP COLUMN "search_vector";

CREATE OR REPLACE FUNCTION "baton_search_entry"(content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_tsvector('baton_search', "baton_search_words"(content));
CREATE OR REPLACE FUNCTION "baton_search_text"(title text, kept_summary text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('baton_search', "baton_search_words"(title)), 'A') || to_tsvector('baton_search', "baton_search_words"(COALESCE(kept_summary, '')));

ALTER TABLE "handoff_entries" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS ("baton_search_entry"("content")) STORED;
CREATE INDEX "handoff_entries_search_idx" ON "handoff_entries" USING GIN ("search_vector");
REINDEX INDEX "handoff_search_texts_search_idx";
