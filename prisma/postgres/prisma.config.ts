import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// The Prisma CLI's view of PostgreSQL's generated schema, used by scripts/postgres-schema.ts
// (which points BATON_SCHEMA_DATABASE_URL at a scratch server it starts).
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaPg({ connectionString: process.env.BATON_SCHEMA_DATABASE_URL ?? "" }),
  schema: process.env.BATON_SCHEMA_FILE ?? "schema.prisma",
  migrations: { path: "migrations" },
});
