-- CreateTable
CREATE TABLE "handoff_unread" (
    "handoff_id" TEXT NOT NULL,
    "side" TEXT NOT NULL,
    "since" DATETIME NOT NULL,

    PRIMARY KEY ("handoff_id", "side"),
    CONSTRAINT "handoff_unread_handoff_id_fkey" FOREIGN KEY ("handoff_id") REFERENCES "handoffs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "handoff_unread_side_since_handoff_id_idx" ON "handoff_unread"("side", "since", "handoff_id");


-- Written by hand (Prisma models no triggers; PostgreSQL's copy is *_unread_since_triggers).
-- handoff_unread holds, for each active handoff and side with entries past that side's cursor,
-- when the first of them was written: the attention list and `handoff.waiting` read the longest
-- waiting first from its index instead of looking for the first unread entry of every handoff
-- (1.5 s at 100,000 handoffs). Triggers keep it, whatever writes: an entry past a cursor starts
-- a row (the first one only), a cursor that moves or a status that changes computes the row
-- again. They write no other table, so the change feed sees nothing of it.
CREATE TRIGGER "unread_entry_created" AFTER INSERT ON "handoff_entries" BEGIN
  INSERT OR IGNORE INTO "handoff_unread" ("handoff_id", "side", "since")
    SELECT "id", 'chat', NEW."created_at" FROM "handoffs" WHERE "id" = NEW."handoff_id" AND "status" = 'active' AND NEW."seq" > "chat_last_seen";
  INSERT OR IGNORE INTO "handoff_unread" ("handoff_id", "side", "since")
    SELECT "id", 'code', NEW."created_at" FROM "handoffs" WHERE "id" = NEW."handoff_id" AND "status" = 'active' AND NEW."seq" > "code_last_seen";
END;
CREATE TRIGGER "unread_chat_cursor_moved" AFTER UPDATE OF "chat_last_seen" ON "handoffs" WHEN NEW."chat_last_seen" IS NOT OLD."chat_last_seen" BEGIN
  DELETE FROM "handoff_unread" WHERE "handoff_id" = NEW."id" AND "side" = 'chat';
  INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
    SELECT NEW."id", 'chat', "created_at" FROM "handoff_entries"
    WHERE NEW."status" = 'active' AND "handoff_id" = NEW."id" AND "seq" > NEW."chat_last_seen" ORDER BY "seq" LIMIT 1;
END;
CREATE TRIGGER "unread_code_cursor_moved" AFTER UPDATE OF "code_last_seen" ON "handoffs" WHEN NEW."code_last_seen" IS NOT OLD."code_last_seen" BEGIN
  DELETE FROM "handoff_unread" WHERE "handoff_id" = NEW."id" AND "side" = 'code';
  INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
    SELECT NEW."id", 'code', "created_at" FROM "handoff_entries"
    WHERE NEW."status" = 'active' AND "handoff_id" = NEW."id" AND "seq" > NEW."code_last_seen" ORDER BY "seq" LIMIT 1;
END;
CREATE TRIGGER "unread_status_changed" AFTER UPDATE OF "status" ON "handoffs" WHEN NEW."status" IS NOT OLD."status" BEGIN
  DELETE FROM "handoff_unread" WHERE "handoff_id" = NEW."id";
  INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
    SELECT NEW."id", 'chat', "created_at" FROM "handoff_entries"
    WHERE NEW."status" = 'active' AND "handoff_id" = NEW."id" AND "seq" > NEW."chat_last_seen" ORDER BY "seq" LIMIT 1;
  INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
    SELECT NEW."id", 'code', "created_at" FROM "handoff_entries"
    WHERE NEW."status" = 'active' AND "handoff_id" = NEW."id" AND "seq" > NEW."code_last_seen" ORDER BY "seq" LIMIT 1;
END;

-- The handoffs already stored: one index seek per active handoff and side.
INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
  SELECT "id", 'chat', (SELECT "created_at" FROM "handoff_entries" e WHERE e."handoff_id" = h."id" AND e."seq" > h."chat_last_seen" ORDER BY e."seq" LIMIT 1)
  FROM "handoffs" h WHERE h."status" = 'active'
    AND EXISTS (SELECT 1 FROM "handoff_entries" e WHERE e."handoff_id" = h."id" AND e."seq" > h."chat_last_seen");
INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
  SELECT "id", 'code', (SELECT "created_at" FROM "handoff_entries" e WHERE e."handoff_id" = h."id" AND e."seq" > h."code_last_seen" ORDER BY e."seq" LIMIT 1)
  FROM "handoffs" h WHERE h."status" = 'active'
    AND EXISTS (SELECT 1 FROM "handoff_entries" e WHERE e."handoff_id" = h."id" AND e."seq" > h."code_last_seen");
