-- Entry numbers (#1 is a thread's first entry), what an entry answers, and the desk's attention
-- marks. Written by hand: columns are added in place (Prisma's diff would rebuild both tables,
-- dropping their change-feed and search triggers, and copy every entry).

-- AlterTable
ALTER TABLE "handoffs" ADD COLUMN "last_number" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "handoff_entries" ADD COLUMN "number" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "handoff_entries" ADD COLUMN "answers" INTEGER;

-- Number the entries already stored, in each thread's order.
WITH "numbered" AS (SELECT "seq", ROW_NUMBER() OVER (PARTITION BY "handoff_id" ORDER BY "seq") AS "n" FROM "handoff_entries")
UPDATE "handoff_entries" SET "number" = "numbered"."n" FROM "numbered" WHERE "numbered"."seq" = "handoff_entries"."seq";

-- A backfill is not activity: without the change-feed trigger meanwhile, it raises no
-- `handoff.updated` for every thread (webhooks) and leaves updated_at alone.
DROP TRIGGER "changes_handoff_updated";
UPDATE "handoffs" SET "last_number" = "counted"."n"
  FROM (SELECT "handoff_id", MAX("number") AS "n" FROM "handoff_entries" GROUP BY "handoff_id") AS "counted"
  WHERE "counted"."handoff_id" = "handoffs"."id";
CREATE TRIGGER "changes_handoff_updated" AFTER UPDATE ON "handoffs" BEGIN
  INSERT INTO "changes" ("subject", "action", "handoff_id")
  VALUES ('handoff', CASE WHEN OLD."status" <> NEW."status" THEN 'closed' ELSE 'updated' END, NEW."id");
END;

-- CreateTable
CREATE TABLE "attention_marks" (
    "operator" TEXT NOT NULL,
    "handoff_id" TEXT NOT NULL,
    "side" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "through_number" INTEGER NOT NULL,
    "until" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("operator", "handoff_id", "side"),
    CONSTRAINT "attention_marks_handoff_id_fkey" FOREIGN KEY ("handoff_id") REFERENCES "handoffs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
