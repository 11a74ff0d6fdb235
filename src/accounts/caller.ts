/** Who is calling: the account and key behind a valid X-API-Key, as read for this request. */
export interface Caller {
  accountId: string;
  accountName: string;
  keyId: string;
  keyPrefix: string;
  balanceMicros: number;
  customRateLimit: number | null;
}
