-- CreateTable
CREATE TABLE "handoff_search_texts" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "handoff_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "kept_summary" TEXT,
    CONSTRAINT "handoff_search_texts_handoff_id_fkey" FOREIGN KEY ("handoff_id") REFERENCES "handoffs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "entry_search_owners" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "text_id" INTEGER NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "handoff_search_texts_handoff_id_key" ON "handoff_search_texts"("handoff_id");


-- Full-text search (lib/search), written by hand: Prisma models no virtual tables, and
-- scripts/new-migration.ts leaves them and their shadow tables out of its diffs.
-- Both indexes hold only terms; the text stays in its own table (external content), where
-- snippets are read from. Words are Unicode letters and digits, accents folded, English stems
-- (porter): "refreshing" finds "refresh", "cafe" finds "café".

-- Entries, by seq (AUTOINCREMENT: a seq is never reused, so a stale term can never point at a
-- later entry).
CREATE VIRTUAL TABLE "entry_search" USING fts5(
  "content",
  content = 'handoff_entries', content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Titles and kept summaries, by handoff_search_texts.id.
CREATE VIRTUAL TABLE "handoff_search" USING fts5(
  "title", "kept_summary",
  content = 'handoff_search_texts', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Triggers keep the index in the writer's own transaction, whatever wrote (any door, any
-- process, a script): one mechanism a new write path cannot forget. Closing a handoff deletes
-- its entries and so their terms: what close wipes, the index does not keep either.
-- Only an entry whose handoff exists is indexed: an insert its foreign key refuses never reaches
-- FTS5 (which, on a refused INSERT … RETURNING outside a transaction, would leave the writer's
-- connection on a stale snapshot: its next write fails once with SQLITE_BUSY_SNAPSHOT).
CREATE TRIGGER "search_entry_created" AFTER INSERT ON "handoff_entries" BEGIN
  INSERT INTO "entry_search_owners" ("seq", "text_id")
  SELECT NEW."seq", "id" FROM "handoff_search_texts" WHERE "handoff_id" = NEW."handoff_id";
  INSERT INTO "entry_search" ("rowid", "content")
  SELECT NEW."seq", NEW."content" FROM "handoff_search_texts" WHERE "handoff_id" = NEW."handoff_id";
END;
CREATE TRIGGER "search_entry_deleted" AFTER DELETE ON "handoff_entries" BEGIN
  INSERT INTO "entry_search" ("entry_search", "rowid", "content") VALUES ('delete', OLD."seq", OLD."content");
  DELETE FROM "entry_search_owners" WHERE "seq" = OLD."seq";
END;
CREATE TRIGGER "search_entry_updated" AFTER UPDATE OF "content" ON "handoff_entries" BEGIN
  INSERT INTO "entry_search" ("entry_search", "rowid", "content") VALUES ('delete', OLD."seq", OLD."content");
  INSERT INTO "entry_search" ("rowid", "content") VALUES (NEW."seq", NEW."content");
END;

-- A handoff's title is copied into its search text. Deleting the handoff deletes that row by
-- the foreign key's cascade, which fires search_text_deleted.
CREATE TRIGGER "search_handoff_created" AFTER INSERT ON "handoffs" BEGIN
  INSERT INTO "handoff_search_texts" ("handoff_id", "title") VALUES (NEW."id", NEW."title");
END;
CREATE TRIGGER "search_handoff_retitled" AFTER UPDATE OF "title" ON "handoffs" BEGIN
  UPDATE "handoff_search_texts" SET "title" = NEW."title" WHERE "handoff_id" = NEW."id";
END;

CREATE TRIGGER "search_text_created" AFTER INSERT ON "handoff_search_texts" BEGIN
  INSERT INTO "handoff_search" ("rowid", "title", "kept_summary") VALUES (NEW."id", NEW."title", NEW."kept_summary");
END;
CREATE TRIGGER "search_text_deleted" AFTER DELETE ON "handoff_search_texts" BEGIN
  INSERT INTO "handoff_search" ("handoff_search", "rowid", "title", "kept_summary") VALUES ('delete', OLD."id", OLD."title", OLD."kept_summary");
END;
CREATE TRIGGER "search_text_updated" AFTER UPDATE ON "handoff_search_texts" BEGIN
  INSERT INTO "handoff_search" ("handoff_search", "rowid", "title", "kept_summary") VALUES ('delete', OLD."id", OLD."title", OLD."kept_summary");
  INSERT INTO "handoff_search" ("rowid", "title", "kept_summary") VALUES (NEW."id", NEW."title", NEW."kept_summary");
END;

-- The index of what existed before this migration (the text rows index themselves through
-- search_text_created). Bundles kept by earlier closes are files this SQL cannot read: those
-- completed threads stay findable by their titles.
INSERT INTO "handoff_search_texts" ("handoff_id", "title") SELECT "id", "title" FROM "handoffs" ORDER BY "created_at", "id";
INSERT INTO "entry_search_owners" ("seq", "text_id")
SELECT e."seq", t."id" FROM "handoff_entries" e JOIN "handoff_search_texts" t ON t."handoff_id" = e."handoff_id";
INSERT INTO "entry_search" ("entry_search") VALUES ('rebuild');
