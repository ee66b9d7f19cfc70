import { defineConfig } from "drizzle-kit";

/** The PostgreSQL dialect: its own schema modules and migrations folder (see docs/deployment.md, "PostgreSQL"). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema-pg/index.ts",
  out: "./db/migrations-pg",
});
