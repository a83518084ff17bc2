import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";
import { databaseUrl } from "./lib/config";

// The JavaScript schema engine ("js" + adapter) lets migrate run without downloading a
// native engine binary, which these machines cannot fetch.
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaBetterSQLite3({ url: databaseUrl() }),
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
