-- A thread's revision (lib/handoffs/store.ts, noteThreadsRewrittenIn): moved by in-place rewrites
-- no other column of the row records. Added in place, as SQLite can add a column with a default:
-- Prisma's redefinition of the table would drop its triggers.
ALTER TABLE "handoffs" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 0;
