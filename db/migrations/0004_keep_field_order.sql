ALTER TABLE "endpoint_versions" ALTER COLUMN "inputs" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "endpoint_versions" ALTER COLUMN "output_format" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "endpoint_versions" ALTER COLUMN "graph" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "published_versions" ALTER COLUMN "inputs" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "published_versions" ALTER COLUMN "output_format" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "published_versions" ALTER COLUMN "graph" SET DATA TYPE json;--> statement-breakpoint
-- json has no equality operator: the immutability check compares the stored text.
CREATE OR REPLACE FUNCTION refuse_released_version_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.frozen_at IS NOT NULL AND (
    NEW.frozen_at IS DISTINCT FROM OLD.frozen_at OR
    NEW.original_prompt IS DISTINCT FROM OLD.original_prompt OR
    NEW.api_name IS DISTINCT FROM OLD.api_name OR
    NEW.inputs::text IS DISTINCT FROM OLD.inputs::text OR
    NEW.output_format::text IS DISTINCT FROM OLD.output_format::text OR
    NEW.graph::text IS DISTINCT FROM OLD.graph::text OR
    NEW.version_notes IS DISTINCT FROM OLD.version_notes OR
    NEW.version IS DISTINCT FROM OLD.version
  ) THEN
    RAISE EXCEPTION 'released version % is immutable', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
