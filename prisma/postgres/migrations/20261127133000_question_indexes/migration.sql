-- Written by hand: PostgreSQL's copy of prisma/migrations/*_question_indexes (partial indexes,
-- which Prisma's schema cannot state): the unanswered questions of "Needs you now" read from an
-- index, not from every entry past the cursors.
CREATE INDEX "handoff_entries_questions_idx" ON "handoff_entries" ("handoff_id", "seq") WHERE "type" = 'question';
CREATE INDEX "handoff_entries_answers_idx" ON "handoff_entries" ("handoff_id", "answers") WHERE "answers" IS NOT NULL;
