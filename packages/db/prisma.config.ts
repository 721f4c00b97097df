// Prisma 7 reads this file from the working directory of the `prisma` CLI: run the CLI from
// packages/db (npm scripts do). Paths are relative to this file.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "../../prisma/schema.prisma",
  migrations: { path: "../../prisma/migrations" },
  // Only the native CLI's migrate commands read this (for instance `prisma migrate deploy` run by
  // someone who has the native engine). Switchyard itself passes URLs to migrate() explicitly.
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
