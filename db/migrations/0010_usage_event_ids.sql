ALTER TABLE "usage_records" ADD COLUMN "event_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "usage_records_event_id_idx" ON "usage_records" USING btree ("event_id");