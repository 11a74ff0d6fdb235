-- Instances cache who a key belongs to (accounts/key-cache.ts). Any change to an account or one of its keys,
-- by whichever writer (another instance, the CLI, an operator's SQL), tells every listening instance at
-- commit, so a revoked key, a new key or a changed plan is not served from a cache.
CREATE OR REPLACE FUNCTION notify_account_changed() RETURNS trigger AS $$
BEGIN
	IF TG_TABLE_NAME = 'accounts' THEN
		PERFORM pg_notify('account_changed', COALESCE(NEW.id, OLD.id));
	ELSE
		PERFORM pg_notify('account_changed', COALESCE(NEW.account_id, OLD.account_id));
	END IF;
	RETURN NULL;
END
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER accounts_changed AFTER UPDATE OR DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION notify_account_changed();
--> statement-breakpoint
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_account_changed();
