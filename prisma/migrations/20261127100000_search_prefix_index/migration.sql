-- Prefix search (lib/search), written by hand like the index it rebuilds. Without a prefix index
-- FTS5 answers `the*` by merging every term the prefix starts, all their matches, before it can
-- hand back the newest: 0.1-0.3 s at a million entries for any three letters, 0.2 s at ten
-- million for four. With prefixes of three and four characters indexed it reads one list, newest
-- first, and stops at the search's limit. Shorter prefixes are searched as words
-- (lib/search/query.ts's MIN_PREFIX_LENGTH); longer ones start few enough terms to merge. The
-- index takes about two fifths more space; rebuilding it here reads every entry once.
DROP TABLE "entry_search";
CREATE VIRTUAL TABLE "entry_search" USING fts5(
  "content",
  content = 'handoff_entries', content_rowid = 'seq',
  prefix = '3 4',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO "entry_search" ("entry_search") VALUES ('rebuild');

DROP TABLE "handoff_search";
CREATE VIRTUAL TABLE "handoff_search" USING fts5(
  "title", "kept_summary",
  content = 'handoff_search_texts', content_rowid = 'id',
  prefix = '3 4',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO "handoff_search" ("handoff_search") VALUES ('rebuild');
