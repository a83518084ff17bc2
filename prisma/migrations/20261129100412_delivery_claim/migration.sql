-- AlterTable
ALTER TABLE "handoff_records" ADD COLUMN "delivering_since" DATETIME;

