ALTER TABLE "usage_records" DROP CONSTRAINT "usage_records_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "usage_records" DROP CONSTRAINT "usage_records_api_key_id_api_keys_id_fk";
