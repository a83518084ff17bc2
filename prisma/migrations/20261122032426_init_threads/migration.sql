-- CreateTable
CREATE TABLE "handoffs" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "project" TEXT,
    "chat_last_seen" INTEGER NOT NULL DEFAULT 0,
    "code_last_seen" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" DATETIME
);

-- CreateTable
CREATE TABLE "handoff_entries" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "handoff_id" TEXT NOT NULL,
    "from_client" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "handoff_entries_handoff_id_fkey" FOREIGN KEY ("handoff_id") REFERENCES "handoffs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "handoffs_updated_at_idx" ON "handoffs"("updated_at");

-- CreateIndex
CREATE INDEX "handoffs_status_updated_at_idx" ON "handoffs"("status", "updated_at");

-- CreateIndex
CREATE INDEX "handoffs_project_updated_at_idx" ON "handoffs"("project", "updated_at");

-- CreateIndex
CREATE INDEX "handoff_entries_handoff_id_seq_idx" ON "handoff_entries"("handoff_id", "seq");

