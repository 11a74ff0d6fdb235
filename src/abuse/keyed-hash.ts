/**
 * Addresses and work fingerprints are stored and compared only as keyed
 * hashes (HMAC-SHA256, 128 bits shown): equal inputs match on every
 * instance, and a flag row or a Redis key cannot be turned back into an
 * address or a guessable prompt by trying candidates without the key. The
 * key is ABUSE_HASH_KEY, or else one made at random the first time and kept
 * in service_secrets, so every instance of a deployment agrees on it.
 */
import { createHmac, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { serviceSecrets } from "../../db/schema.ts";

const SECRET_NAME = "abuse_hash_key";

export class KeyedHash {
  constructor(private readonly key: string) {}

  /** 32 hex characters; `domain` keeps an address and a fingerprint of the same text apart. */
  of(domain: "address" | "work", text: string): string {
    return createHmac("sha256", this.key).update(`${domain}\n${text}`).digest("hex").slice(0, 32);
  }
}

/** The configured key, or the deployment's stored one (made now if there is none: the first writer wins). */
export async function loadHashKey(db: Database, configured: string | undefined): Promise<KeyedHash> {
  if (configured) return new KeyedHash(configured);
  await db
    .insert(serviceSecrets)
    .values({ name: SECRET_NAME, value: randomBytes(32).toString("base64url") })
    .onConflictDoNothing();
  const [row] = await db.select({ value: serviceSecrets.value }).from(serviceSecrets).where(eq(serviceSecrets.name, SECRET_NAME));
  if (!row) throw new Error("the abuse hash key could not be stored");
  return new KeyedHash(row.value);
}
