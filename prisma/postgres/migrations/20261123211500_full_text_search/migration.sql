-- Full-text search (lib/search/postgres.ts), written by hand: PostgreSQL's copy of
-- prisma/migrations/*_full_text_search. Prisma models neither text search configurations nor
-- indexes on expressions. Instead of FTS5's tables, GIN indexes on tsvectors of the rows
-- themselves: an insert, update or delete keeps them in its own transaction, whatever wrote.
-- Words are English stems with accents folded: "refreshing" finds "refresh", "cafe" finds
-- "café" (unaccent before the stemmer, for the token types that can carry accents). Every word
-- is indexed, as FTS5 does: english_stem would drop stop words, and then "after" or "not"
-- would find nothing.

CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE TEXT SEARCH DICTIONARY "baton_english_stem" (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION "baton_search" (COPY = english);
ALTER TEXT SEARCH CONFIGURATION "baton_search" ALTER MAPPING FOR asciiword, asciihword, hword_asciipart WITH "baton_english_stem";
ALTER TEXT SEARCH CONFIGURATION "baton_search" ALTER MAPPING FOR word, hword, hword_part WITH unaccent, "baton_english_stem";

-- The vectors the queries and the indexes share (the same expression, so the planner uses the
-- index). IMMUTABLE: to_tsvector with its configuration named is; the configuration is Baton's.
-- A title's words weigh more than a kept summary's (weight A; lib/search/postgres.ts ranks).
CREATE FUNCTION "baton_search_entry"(content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_tsvector('baton_search', content);
CREATE FUNCTION "baton_search_text"(title text, kept_summary text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('baton_search', title), 'A') || to_tsvector('baton_search', COALESCE(kept_summary, ''));

CREATE INDEX "handoff_entries_search_idx" ON "handoff_entries" USING GIN ("baton_search_entry"("content"));
CREATE INDEX "handoff_search_texts_search_idx" ON "handoff_search_texts" USING GIN ("baton_search_text"("title", "kept_summary"));

-- The triggers keep handoff_search_texts (a handoff's title, and the summary its close kept)
-- and entry_search_owners as SQLite's do. Closing a handoff deletes its entries and so their
-- index entries: what close wipes, the index does not keep either. Entries are handled a
-- statement at a time (a close deletes thousands at once).
CREATE FUNCTION "search_entries_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "entry_search_owners" ("seq", "text_id")
  SELECT n."seq", t."id" FROM created n JOIN "handoff_search_texts" t ON t."handoff_id" = n."handoff_id";
  RETURN NULL;
END $$;
CREATE TRIGGER "search_entries_created" AFTER INSERT ON "handoff_entries"
  REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION "search_entries_created"();

CREATE FUNCTION "search_entries_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "entry_search_owners" o USING deleted d WHERE o."seq" = d."seq";
  RETURN NULL;
END $$;
CREATE TRIGGER "search_entries_deleted" AFTER DELETE ON "handoff_entries"
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION "search_entries_deleted"();

-- A handoff's title is copied into its search text. Deleting the handoff deletes that row by
-- the foreign key's cascade.
CREATE FUNCTION "search_handoff_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "handoff_search_texts" ("handoff_id", "title") VALUES (NEW."id", NEW."title");
  RETURN NULL;
END $$;
CREATE TRIGGER "search_handoff_created" AFTER INSERT ON "handoffs"
  FOR EACH ROW EXECUTE FUNCTION "search_handoff_created"();

CREATE FUNCTION "search_handoff_retitled"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "handoff_search_texts" SET "title" = NEW."title" WHERE "handoff_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "search_handoff_retitled" AFTER UPDATE OF "title" ON "handoffs"
  FOR EACH ROW WHEN (OLD."title" IS DISTINCT FROM NEW."title") EXECUTE FUNCTION "search_handoff_retitled"();

-- What existed before this migration (a database migrated on an earlier Baton).
INSERT INTO "handoff_search_texts" ("handoff_id", "title") SELECT "id", "title" FROM "handoffs" ORDER BY "created_at", "id"
  ON CONFLICT ("handoff_id") DO NOTHING;
INSERT INTO "entry_search_owners" ("seq", "text_id")
  SELECT e."seq", t."id" FROM "handoff_entries" e JOIN "handoff_search_texts" t ON t."handoff_id" = e."handoff_id"
  ON CONFLICT ("seq") DO NOTHING;
