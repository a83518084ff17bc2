-- CreateTable
CREATE TABLE "agents" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "session_id" TEXT NOT NULL,
    "persona_slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "project" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "tmux_target" TEXT,
    "context_percent" INTEGER,
    "previous_agent_id" INTEGER,
    "started_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" DATETIME,
    CONSTRAINT "agents_previous_agent_id_fkey" FOREIGN KEY ("previous_agent_id") REFERENCES "agents" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "handoff_records" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "agent_id" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "file_path" TEXT,
    "injection_prompt" TEXT,
    "delivery" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "handoff_records_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "agents_session_id_key" ON "agents"("session_id");

-- CreateIndex
CREATE INDEX "agents_status_started_at_idx" ON "agents"("status", "started_at");

-- CreateIndex
CREATE INDEX "agents_persona_slug_started_at_idx" ON "agents"("persona_slug", "started_at");

-- CreateIndex
CREATE INDEX "agents_project_started_at_idx" ON "agents"("project", "started_at");

-- CreateIndex
CREATE INDEX "agents_previous_agent_id_idx" ON "agents"("previous_agent_id");

-- CreateIndex
CREATE UNIQUE INDEX "handoff_records_agent_id_key" ON "handoff_records"("agent_id");

