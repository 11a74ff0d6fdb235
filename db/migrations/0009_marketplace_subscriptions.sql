CREATE TABLE "marketplace_subscriptions" (
	"account_id" text NOT NULL,
	"published_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "marketplace_subscriptions" ADD CONSTRAINT "marketplace_subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "marketplace_subscriptions" ADD CONSTRAINT "marketplace_subscriptions_published_id_published_endpoints_id_fk" FOREIGN KEY ("published_id") REFERENCES "public"."published_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "marketplace_subscriptions_pair_idx" ON "marketplace_subscriptions" USING btree ("account_id","published_id");