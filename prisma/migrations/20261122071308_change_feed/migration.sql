-- CreateTable
CREATE TABLE "changes" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "subject" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "handoff_id" TEXT,
    "agent_id" INTEGER,
    "entry_seq" INTEGER,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);


-- Every write appends to the change feed in its own transaction, whatever wrote it (the
-- dashboard, an MCP process, the CLI, a migration script): one mechanism instead of a call in
-- every write path that a new one could forget.
CREATE TRIGGER "changes_handoff_created" AFTER INSERT ON "handoffs" BEGIN
  INSERT INTO "changes" ("subject", "action", "handoff_id") VALUES ('handoff', 'created', NEW."id");
END;
CREATE TRIGGER "changes_handoff_updated" AFTER UPDATE ON "handoffs" BEGIN
  INSERT INTO "changes" ("subject", "action", "handoff_id")
  VALUES ('handoff', CASE WHEN OLD."status" <> NEW."status" THEN 'closed' ELSE 'updated' END, NEW."id");
END;
CREATE TRIGGER "changes_entry_created" AFTER INSERT ON "handoff_entries" BEGIN
  INSERT INTO "changes" ("subject", "action", "handoff_id", "entry_seq") VALUES ('entry', 'created', NEW."handoff_id", NEW."seq");
END;
CREATE TRIGGER "changes_agent_created" AFTER INSERT ON "agents" BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('agent', 'created', NEW."id");
END;
CREATE TRIGGER "changes_agent_updated" AFTER UPDATE ON "agents" BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('agent', 'updated', NEW."id");
END;
CREATE TRIGGER "changes_shift_handoff_created" AFTER INSERT ON "handoff_records" BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('shift_handoff', 'created', NEW."agent_id");
END;
CREATE TRIGGER "changes_shift_handoff_updated" AFTER UPDATE ON "handoff_records" BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('shift_handoff', 'updated', NEW."agent_id");
END;
