-- CreateTable
CREATE TABLE "oauth_clients" (
    "client_id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "redirect_uris" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "oauth_codes" (
    "code_hash" TEXT NOT NULL PRIMARY KEY,
    "token_id" INTEGER NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "code_challenge" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME,
    CONSTRAINT "oauth_codes_token_id_fkey" FOREIGN KEY ("token_id") REFERENCES "access_tokens" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "oauth_tokens" (
    "token_hash" TEXT NOT NULL PRIMARY KEY,
    "token_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "oauth_tokens_token_id_fkey" FOREIGN KEY ("token_id") REFERENCES "access_tokens" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_handoff_records" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "agent_id" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "file_path" TEXT,
    "injection_prompt" TEXT,
    "delivery" TEXT,
    "delivery_state" TEXT,
    "delivery_attempts" INTEGER NOT NULL DEFAULT 0,
    "typed_at" DATETIME,
    "submitted_at" DATETIME,
    "read_at" DATETIME,
    "acted_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "handoff_records_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_handoff_records" ("agent_id", "created_at", "delivery", "file_path", "id", "injection_prompt", "reason") SELECT "agent_id", "created_at", "delivery", "file_path", "id", "injection_prompt", "reason" FROM "handoff_records";
DROP TABLE "handoff_records";
ALTER TABLE "new_handoff_records" RENAME TO "handoff_records";
CREATE UNIQUE INDEX "handoff_records_agent_id_key" ON "handoff_records"("agent_id");
CREATE TABLE "new_access_tokens" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" DATETIME,
    "client_id" TEXT,
    "act_as" TEXT,
    CONSTRAINT "access_tokens_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "oauth_clients" ("client_id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_access_tokens" ("created_at", "id", "last_used_at", "name", "role", "token_hash") SELECT "created_at", "id", "last_used_at", "name", "role", "token_hash" FROM "access_tokens";
DROP TABLE "access_tokens";
ALTER TABLE "new_access_tokens" RENAME TO "access_tokens";
CREATE UNIQUE INDEX "access_tokens_name_key" ON "access_tokens"("name");
CREATE UNIQUE INDEX "access_tokens_token_hash_key" ON "access_tokens"("token_hash");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "oauth_codes_token_id_idx" ON "oauth_codes"("token_id");

-- CreateIndex
CREATE INDEX "oauth_tokens_token_id_idx" ON "oauth_tokens"("token_id");

