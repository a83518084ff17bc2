-- AlterTable
ALTER TABLE "handoff_records" ADD COLUMN "document" TEXT;

-- AlterTable
ALTER TABLE "artifacts" ADD COLUMN "content" TEXT;

