-- Written by hand: partial indexes, which Prisma's schema cannot state (PostgreSQL's copy is the
-- migration of the same name there). "Needs you now" looks for the questions of the most
-- recently active threads that nobody answered (lib/dashboard/find-attention.ts): with these it
-- reads each thread's questions and each question's answer from an index, instead of every
-- entry past the cursors and, per question, every later entry of its thread (19 ms at
-- 10,000,000 entries against 6 ms at 1,000,000; 0.7 ms with them). Both are small: questions
-- are a share of the entries, answers fewer still.
CREATE INDEX "handoff_entries_questions_idx" ON "handoff_entries" ("handoff_id", "seq") WHERE "type" = 'question';
CREATE INDEX "handoff_entries_answers_idx" ON "handoff_entries" ("handoff_id", "answers") WHERE "answers" IS NOT NULL;
