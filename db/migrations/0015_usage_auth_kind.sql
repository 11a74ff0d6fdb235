-- How each usage record's caller signed in (an API key or a dashboard session) and whether the call was billable: GET /v1/usage leaves the dashboard's own browsing out by default.
ALTER TABLE "usage_records" ADD COLUMN "auth" text DEFAULT 'key' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "billable" boolean DEFAULT false NOT NULL;