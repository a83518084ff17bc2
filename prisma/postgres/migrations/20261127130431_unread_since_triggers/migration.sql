-- Written by hand (Prisma models no triggers): PostgreSQL's copy of the triggers in
-- prisma/migrations/*_unread_since, which keep handoff_unread (for each active handoff and side
-- with entries past that side's cursor, when the first of them was written) whatever writes.
-- An append is one statement (lib/handoffs/append-statement.ts): its row triggers run after it,
-- when the writer's cursor has already moved past the entry, so only the other side gets a row.
CREATE FUNCTION "unread_entry_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
    SELECT "id", 'chat', NEW."created_at" FROM "handoffs" WHERE "id" = NEW."handoff_id" AND "status" = 'active' AND NEW."seq" > "chat_last_seen"
    UNION ALL
    SELECT "id", 'code', NEW."created_at" FROM "handoffs" WHERE "id" = NEW."handoff_id" AND "status" = 'active' AND NEW."seq" > "code_last_seen"
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER "unread_entry_created" AFTER INSERT ON "handoff_entries" FOR EACH ROW EXECUTE FUNCTION "unread_entry_created"();

CREATE FUNCTION "unread_handoff_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."chat_last_seen" IS DISTINCT FROM OLD."chat_last_seen" OR NEW."status" IS DISTINCT FROM OLD."status" THEN
    DELETE FROM "handoff_unread" WHERE "handoff_id" = NEW."id" AND "side" = 'chat';
    INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
      SELECT NEW."id", 'chat', "created_at" FROM "handoff_entries"
      WHERE NEW."status" = 'active' AND "handoff_id" = NEW."id" AND "seq" > NEW."chat_last_seen" ORDER BY "seq" LIMIT 1;
  END IF;
  IF NEW."code_last_seen" IS DISTINCT FROM OLD."code_last_seen" OR NEW."status" IS DISTINCT FROM OLD."status" THEN
    DELETE FROM "handoff_unread" WHERE "handoff_id" = NEW."id" AND "side" = 'code';
    INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
      SELECT NEW."id", 'code', "created_at" FROM "handoff_entries"
      WHERE NEW."status" = 'active' AND "handoff_id" = NEW."id" AND "seq" > NEW."code_last_seen" ORDER BY "seq" LIMIT 1;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "unread_handoff_moved" AFTER UPDATE OF "chat_last_seen", "code_last_seen", "status" ON "handoffs" FOR EACH ROW EXECUTE FUNCTION "unread_handoff_moved"();

-- The handoffs already stored: one index seek per active handoff and side.
INSERT INTO "handoff_unread" ("handoff_id", "side", "since")
  SELECT h."id", s."side", f."created_at"
  FROM "handoffs" h
  CROSS JOIN (VALUES ('chat'), ('code')) AS s ("side")
  CROSS JOIN LATERAL (
    SELECT e."created_at" FROM "handoff_entries" e
    WHERE e."handoff_id" = h."id" AND e."seq" > CASE s."side" WHEN 'chat' THEN h."chat_last_seen" ELSE h."code_last_seen" END
    ORDER BY e."seq" LIMIT 1
  ) f
  WHERE h."status" = 'active';
