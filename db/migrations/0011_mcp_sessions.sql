-- MCP sessions and their event logs, shared by the instances of a fleet that has no Redis (src/mcp/postgres-session-store.ts).
CREATE TABLE "mcp_session_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "mcp_session_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_id" text NOT NULL,
	"stream_id" text NOT NULL,
	"message" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"init" text NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_session_events" ADD CONSTRAINT "mcp_session_events_session_id_mcp_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."mcp_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_session_events_session_idx" ON "mcp_session_events" USING btree ("session_id","id");--> statement-breakpoint
CREATE INDEX "mcp_sessions_account_idx" ON "mcp_sessions" USING btree ("account_id","last_seen_at");--> statement-breakpoint
CREATE INDEX "mcp_sessions_seen_idx" ON "mcp_sessions" USING btree ("last_seen_at");