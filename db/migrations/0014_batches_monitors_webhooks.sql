-- Batches and monitors of tasks (src/tasks/), and webhooks: each account's signing secret, the deliveries and their attempts (src/webhooks/).
CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"status" text NOT NULL,
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"total" integer NOT NULL,
	"webhook_url" text,
	"metadata" text,
	"idempotency_key" text,
	"request_digest" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "batches_status_check" CHECK ("batches"."status" in ('running', 'completed', 'canceled'))
);
--> statement-breakpoint
CREATE TABLE "monitors" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"status" text NOT NULL,
	"kind" text NOT NULL,
	"target" text,
	"request" text NOT NULL,
	"schedule" text NOT NULL,
	"webhook_url" text NOT NULL,
	"metadata" text,
	"next_run_at" timestamp with time zone NOT NULL,
	"last_task_id" text,
	"last_result" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "monitors_status_check" CHECK ("monitors"."status" in ('active', 'paused'))
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"delivery_id" text NOT NULL,
	"n" integer NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"status" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	CONSTRAINT "webhook_attempts_delivery_id_n_pk" PRIMARY KEY("delivery_id","n")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"event_type" text NOT NULL,
	"url" text NOT NULL,
	"payload" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status" integer,
	"last_error" text,
	"last_latency_ms" integer,
	"next_attempt_at" timestamp with time zone,
	"retry_until" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" in ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhook_secrets" (
	"account_id" text PRIMARY KEY NOT NULL,
	"secret" text NOT NULL,
	"previous_secret" text,
	"previous_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rotated_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "batch_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "batch_index" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "monitor_id" text;--> statement-breakpoint
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batches_account_idx" ON "batches" USING btree ("account_id","id" desc);--> statement-breakpoint
CREATE UNIQUE INDEX "batches_idempotency_idx" ON "batches" USING btree ("account_id","idempotency_key") WHERE "batches"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "monitors_account_idx" ON "monitors" USING btree ("account_id","id" desc);--> statement-breakpoint
CREATE INDEX "monitors_due_idx" ON "monitors" USING btree ("next_run_at") WHERE "monitors"."status" = 'active';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_account_idx" ON "webhook_deliveries" USING btree ("account_id","id" desc);--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_batch_idx" ON "tasks" USING btree ("batch_id","batch_index") WHERE "tasks"."batch_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_monitor_idx" ON "tasks" USING btree ("monitor_id","id" desc) WHERE "tasks"."monitor_id" is not null;