CREATE TABLE "pages" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"final_url" text NOT NULL,
	"host" text NOT NULL,
	"content_type" text NOT NULL,
	"title" text,
	"byline" text,
	"site_name" text,
	"published_at" timestamp with time zone,
	"language" text,
	"html" text NOT NULL,
	"markdown" text NOT NULL,
	"text" text NOT NULL,
	"links" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"word_count" integer NOT NULL,
	"token_count" integer NOT NULL,
	"etag" text,
	"last_modified" text,
	"fetched_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pages_url_unique" UNIQUE("url")
);
--> statement-breakpoint
CREATE TABLE "passages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "passages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"page_id" text NOT NULL,
	"ordinal" integer NOT NULL,
	"heading" text,
	"content" text NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', coalesce(heading, '')), 'A') || to_tsvector('simple', content)) STORED NOT NULL
);
--> statement-breakpoint
ALTER TABLE "passages" ADD CONSTRAINT "passages_page_id_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pages_host_idx" ON "pages" USING btree ("host");--> statement-breakpoint
CREATE INDEX "passages_page_idx" ON "passages" USING btree ("page_id","ordinal");--> statement-breakpoint
CREATE INDEX "passages_search_idx" ON "passages" USING gin ("search");