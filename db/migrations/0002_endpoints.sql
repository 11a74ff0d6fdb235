CREATE TABLE "endpoint_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"endpoint_id" text NOT NULL,
	"account_id" text NOT NULL,
	"version" integer NOT NULL,
	"original_prompt" text NOT NULL,
	"api_name" text NOT NULL,
	"inputs" jsonb NOT NULL,
	"output_format" jsonb NOT NULL,
	"graph" jsonb NOT NULL,
	"version_notes" text,
	"frozen_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"stub" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "endpoints_stub_unique" UNIQUE("stub")
);
--> statement-breakpoint
CREATE TABLE "published_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"public_stub" text NOT NULL,
	"owner_account_id" text NOT NULL,
	"source_endpoint_id" text,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"category" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "published_endpoints_public_stub_unique" UNIQUE("public_stub")
);
--> statement-breakpoint
CREATE TABLE "published_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"published_id" text NOT NULL,
	"version" integer NOT NULL,
	"source_version" integer NOT NULL,
	"api_name" text NOT NULL,
	"original_prompt" text NOT NULL,
	"inputs" jsonb NOT NULL,
	"output_format" jsonb NOT NULL,
	"graph" jsonb NOT NULL,
	"version_notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "cost_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "publisher_account_id" text;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "published_id" text;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "earnings_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "endpoint_versions" ADD CONSTRAINT "endpoint_versions_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoint_versions" ADD CONSTRAINT "endpoint_versions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "published_endpoints" ADD CONSTRAINT "published_endpoints_owner_account_id_accounts_id_fk" FOREIGN KEY ("owner_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "published_versions" ADD CONSTRAINT "published_versions_published_id_published_endpoints_id_fk" FOREIGN KEY ("published_id") REFERENCES "public"."published_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "endpoint_versions_number_idx" ON "endpoint_versions" USING btree ("endpoint_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "endpoint_versions_one_draft_idx" ON "endpoint_versions" USING btree ("endpoint_id") WHERE "endpoint_versions"."frozen_at" is null;--> statement-breakpoint
CREATE INDEX "endpoint_versions_account_idx" ON "endpoint_versions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "endpoints_account_idx" ON "endpoints" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "published_endpoints_source_idx" ON "published_endpoints" USING btree ("source_endpoint_id") WHERE "published_endpoints"."source_endpoint_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "published_versions_number_idx" ON "published_versions" USING btree ("published_id","version");--> statement-breakpoint
CREATE INDEX "usage_records_publisher_time_idx" ON "usage_records" USING btree ("publisher_account_id","created_at" desc) WHERE "usage_records"."publisher_account_id" is not null;