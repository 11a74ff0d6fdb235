import { defineConfig } from "drizzle-kit";

// Only `npm run db:generate` reads this: it writes SQL migrations from db/schema.ts.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
});
