-- Rules the data keeps by itself, whatever code runs against it:
-- a released version's content never changes, and a published snapshot never changes at all.
CREATE FUNCTION refuse_released_version_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.frozen_at IS NOT NULL AND (
    NEW.frozen_at IS DISTINCT FROM OLD.frozen_at OR
    NEW.original_prompt IS DISTINCT FROM OLD.original_prompt OR
    NEW.api_name IS DISTINCT FROM OLD.api_name OR
    NEW.inputs IS DISTINCT FROM OLD.inputs OR
    NEW.output_format IS DISTINCT FROM OLD.output_format OR
    NEW.graph IS DISTINCT FROM OLD.graph OR
    NEW.version_notes IS DISTINCT FROM OLD.version_notes OR
    NEW.version IS DISTINCT FROM OLD.version
  ) THEN
    RAISE EXCEPTION 'released version % is immutable', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER endpoint_versions_released_immutable BEFORE UPDATE ON endpoint_versions
  FOR EACH ROW EXECUTE FUNCTION refuse_released_version_change();
--> statement-breakpoint
CREATE FUNCTION refuse_snapshot_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'published snapshot % is immutable', OLD.id USING ERRCODE = 'check_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER published_versions_immutable BEFORE UPDATE ON published_versions
  FOR EACH ROW EXECUTE FUNCTION refuse_snapshot_change();
