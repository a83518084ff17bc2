/** `npm run db:migrate`: applies pending migrations to the configured database (lib/migrate.ts). */
import { databaseFile } from "../lib/config";
import { ensureMigrated, pendingMigrations } from "../lib/migrate";

const pending = pendingMigrations();
ensureMigrated();
console.log(pending.length ? `baton: applied ${pending.join(", ")} to ${databaseFile()}` : `baton: ${databaseFile()} is up to date`);
