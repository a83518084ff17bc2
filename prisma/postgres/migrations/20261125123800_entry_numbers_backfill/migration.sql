-- Written by hand: numbers the entries already stored (#1 is a thread's first entry) and keeps
-- each thread's last number, as prisma/migrations/*_entry_numbers_answers_and_attention_marks
-- does on SQLite. A backfill is not activity: the change-feed trigger is off meanwhile, so it
-- raises no `handoff.updated` for every thread (webhooks).

UPDATE "handoff_entries" SET "number" = "numbered"."n"
  FROM (SELECT "seq", ROW_NUMBER() OVER (PARTITION BY "handoff_id" ORDER BY "seq") AS "n" FROM "handoff_entries") AS "numbered"
  WHERE "numbered"."seq" = "handoff_entries"."seq";

ALTER TABLE "handoffs" DISABLE TRIGGER "changes_handoff_written";
UPDATE "handoffs" SET "last_number" = "counted"."n"
  FROM (SELECT "handoff_id", MAX("number") AS "n" FROM "handoff_entries" GROUP BY "handoff_id") AS "counted"
  WHERE "counted"."handoff_id" = "handoffs"."id";
ALTER TABLE "handoffs" ENABLE TRIGGER "changes_handoff_written";
