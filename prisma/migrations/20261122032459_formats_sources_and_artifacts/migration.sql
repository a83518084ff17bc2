-- CreateTable
CREATE TABLE "handoff_sources" (
    "handoff_id" TEXT NOT NULL PRIMARY KEY,
    "format" TEXT NOT NULL,
    "file_name" TEXT,
    "document" TEXT NOT NULL,
    "metadata" TEXT NOT NULL DEFAULT '{}',
    "warnings" TEXT NOT NULL DEFAULT '[]',
    "parent_thread_id" TEXT,
    "parent_seq" INTEGER,
    "artifact_id" TEXT,
    "imported_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "handoff_sources_handoff_id_fkey" FOREIGN KEY ("handoff_id") REFERENCES "handoffs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "artifacts" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL DEFAULT 'context_bundle',
    "handoff_id" TEXT,
    "cut_seq" INTEGER,
    "purpose" TEXT NOT NULL DEFAULT 'export',
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "artifacts_handoff_id_fkey" FOREIGN KEY ("handoff_id") REFERENCES "handoffs" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "handoff_sources_format_idx" ON "handoff_sources"("format");

-- CreateIndex
CREATE INDEX "handoff_sources_parent_thread_id_idx" ON "handoff_sources"("parent_thread_id");

-- CreateIndex
CREATE INDEX "artifacts_handoff_id_created_at_idx" ON "artifacts"("handoff_id", "created_at");

