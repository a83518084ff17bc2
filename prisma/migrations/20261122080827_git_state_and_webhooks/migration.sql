-- AlterTable
ALTER TABLE "handoffs" ADD COLUMN "git" TEXT;

-- AlterTable
ALTER TABLE "handoff_entries" ADD COLUMN "git" TEXT;

-- AlterTable
ALTER TABLE "handoff_records" ADD COLUMN "git" TEXT;

-- AlterTable
ALTER TABLE "handoff_sources" ADD COLUMN "git" TEXT;

-- CreateTable
CREATE TABLE "webhooks" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "webhook_id" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME NOT NULL,
    "last_status" INTEGER,
    "last_response_ms" INTEGER,
    "last_error" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" DATETIME,
    CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_created_at_idx" ON "webhook_deliveries"("webhook_id", "created_at");


-- 20261122073532_connectors_and_delivery redefined handoff_records (Prisma's copy-and-rename for
-- SQLite), which dropped its change-feed triggers with the old table: put them back.
CREATE TRIGGER IF NOT EXISTS "changes_shift_handoff_created" AFTER INSERT ON "handoff_records" BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('shift_handoff', 'created', NEW."agent_id");
END;
CREATE TRIGGER IF NOT EXISTS "changes_shift_handoff_updated" AFTER UPDATE ON "handoff_records" BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('shift_handoff', 'updated', NEW."agent_id");
END;
