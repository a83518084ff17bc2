-- The entry index is written in batches (lib/search/pending.ts), no longer by a trigger in each
-- append's own transaction: FTS5 writes a segment of its own at every commit that added terms,
-- seven of the fifteen pages an append wrote, and a fifth of a stdio append's time. An entry is
-- in the index exactly when it has an owner row (entry_search_owners); the entries after the
-- highest owned seq are pending. Appends index the pending ones once BATCH of them wait, and a
-- search indexes them before it reads: what an append acknowledged, a search finds.
DROP TRIGGER "search_entry_created";

-- Deleting or rewriting an entry touches the index only when the entry is in it: a pending one
-- is indexed, later, as it then is (or never, once deleted).
DROP TRIGGER "search_entry_deleted";
CREATE TRIGGER "search_entry_deleted" AFTER DELETE ON "handoff_entries"
WHEN EXISTS (SELECT 1 FROM "entry_search_owners" WHERE "seq" = OLD."seq") BEGIN
  INSERT INTO "entry_search" ("entry_search", "rowid", "content") VALUES ('delete', OLD."seq", OLD."content");
  DELETE FROM "entry_search_owners" WHERE "seq" = OLD."seq";
END;
DROP TRIGGER "search_entry_updated";
CREATE TRIGGER "search_entry_updated" AFTER UPDATE OF "content" ON "handoff_entries"
WHEN EXISTS (SELECT 1 FROM "entry_search_owners" WHERE "seq" = OLD."seq") BEGIN
  INSERT INTO "entry_search" ("entry_search", "rowid", "content") VALUES ('delete', OLD."seq", OLD."content");
  INSERT INTO "entry_search" ("rowid", "content") VALUES (NEW."seq", NEW."content");
END;
