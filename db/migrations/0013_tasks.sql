-- Tasks (src/tasks/): research started now and answered later, and the events of their streams. Their jobs live in the pgboss schema, which pg-boss installs itself (db/jobs.ts).
CREATE TABLE "task_events" (
	"task_id" text NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"data" text NOT NULL,
	CONSTRAINT "task_events_task_id_seq_pk" PRIMARY KEY("task_id","seq")
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"status" text NOT NULL,
	"kind" text NOT NULL,
	"target" text,
	"request" text NOT NULL,
	"metadata" text,
	"webhook_url" text,
	"idempotency_key" text,
	"request_digest" text,
	"result" text,
	"error_code" text,
	"error_message" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "tasks_status_check" CHECK ("tasks"."status" in ('queued', 'running', 'succeeded', 'failed', 'canceled'))
);
--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_account_idx" ON "tasks" USING btree ("account_id","id" desc);--> statement-breakpoint
CREATE INDEX "tasks_account_status_idx" ON "tasks" USING btree ("account_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_idempotency_idx" ON "tasks" USING btree ("account_id","idempotency_key") WHERE "tasks"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "tasks_finished_idx" ON "tasks" USING btree ("finished_at") WHERE "tasks"."finished_at" is not null;