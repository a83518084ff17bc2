-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN "claimed_until" DATETIME;

