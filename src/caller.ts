/**
 * Who is calling: the account and the key behind a valid X-API-Key, or the
 * dashboard session (cookie plus CSRF header) of a signed-in owner.
 */
export interface Caller {
  accountId: string;
  accountName: string;
  /** Null when the caller is a dashboard session. */
  keyId: string | null;
  keyPrefix: string | null;
  sessionId?: string;
  balanceMicros: number;
  customRateLimit: number | null;
  /** Set while limit-evasion detection throttles the account: its research spends this bucket, shared with the others flagged with it. */
  sharedBucket?: string | null;
}

/** The rate-limit bucket of a caller: per key, or one per account for its dashboard sessions. */
export function bucketOf(caller: Caller): string {
  return caller.keyId ?? `session:${caller.accountId}`;
}

/** Who made a call and from where (http/client-address.ts): what limit-evasion detection counts. */
export interface CallOrigin {
  caller: Caller;
  address: string | null;
}
