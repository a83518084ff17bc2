/** `npm run db:migrate`: applies pending migrations to the configured database (lib/database/migrate.ts). */
import { describeDatabase } from "../lib/config";
import { ensureMigrated, pendingMigrations } from "../lib/database/migrate";

const pending = await pendingMigrations();
await ensureMigrated();
console.log(pending.length ? `baton: applied ${pending.join(", ")} to ${describeDatabase()}` : `baton: ${describeDatabase()} is up to date`);
