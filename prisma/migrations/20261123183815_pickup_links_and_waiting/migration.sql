-- CreateTable
CREATE TABLE "repository_links" (
    "repository" TEXT NOT NULL PRIMARY KEY,
    "project" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "webhook_waiting" (
    "handoff_id" TEXT NOT NULL,
    "side" TEXT NOT NULL,
    "first_seq" INTEGER NOT NULL,
    "raised_at" DATETIME NOT NULL,

    PRIMARY KEY ("handoff_id", "side")
);

-- CreateIndex
CREATE INDEX "repository_links_project_idx" ON "repository_links"("project");

