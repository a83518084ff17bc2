-- Written by hand (Prisma models no triggers): PostgreSQL's copy of the change feed's triggers
-- in prisma/migrations/*_change_feed. Every write appends to `changes` in its own transaction,
-- whatever wrote it (any instance, a stdio MCP process, the CLI, a script), and a NOTIFY on
-- channel `baton_changes` (sent at commit, once per transaction) wakes every instance's feed,
-- which then reads the new rows: the push across instances. The rows stay for replay
-- (Last-Event-ID).

CREATE FUNCTION "changes_handoff_written"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "changes" ("subject", "action", "handoff_id") VALUES ('handoff', 'created', NEW."id");
  ELSE
    INSERT INTO "changes" ("subject", "action", "handoff_id")
    VALUES ('handoff', CASE WHEN OLD."status" <> NEW."status" THEN 'closed' ELSE 'updated' END, NEW."id");
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "changes_handoff_written" AFTER INSERT OR UPDATE ON "handoffs" FOR EACH ROW EXECUTE FUNCTION "changes_handoff_written"();

CREATE FUNCTION "changes_entry_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "changes" ("subject", "action", "handoff_id", "entry_seq") VALUES ('entry', 'created', NEW."handoff_id", NEW."seq");
  RETURN NULL;
END $$;
CREATE TRIGGER "changes_entry_created" AFTER INSERT ON "handoff_entries" FOR EACH ROW EXECUTE FUNCTION "changes_entry_created"();

CREATE FUNCTION "changes_agent_written"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('agent', CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW."id");
  RETURN NULL;
END $$;
CREATE TRIGGER "changes_agent_written" AFTER INSERT OR UPDATE ON "agents" FOR EACH ROW EXECUTE FUNCTION "changes_agent_written"();

CREATE FUNCTION "changes_shift_handoff_written"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "changes" ("subject", "action", "agent_id") VALUES ('shift_handoff', CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW."agent_id");
  RETURN NULL;
END $$;
CREATE TRIGGER "changes_shift_handoff_written" AFTER INSERT OR UPDATE ON "handoff_records" FOR EACH ROW EXECUTE FUNCTION "changes_shift_handoff_written"();

CREATE FUNCTION "changes_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('baton_changes', '');
  RETURN NULL;
END $$;
CREATE TRIGGER "changes_notify" AFTER INSERT ON "changes" FOR EACH STATEMENT EXECUTE FUNCTION "changes_notify"();
